import { useRef } from 'react';
import { useNavigate } from 'react-router';
import { IconLogout, IconUser } from '../../components/icons';
import { moveMenuFocus, useDismiss } from '../../components/use-dismiss';
import { useAppSelector } from '../../lib/hooks';
import { selectAuthUser } from '../../lib/session';
import { useMenu } from '../../lib/ui-slice';
import { useSignOut } from '../../lib/use-sign-out';
import { greetingName, initials } from '../../lib/user';

/** Avatar button with the greeting, Profile settings and Logout. */
export function AccountMenu() {
  const user = useAppSelector(selectAuthUser);
  const { open, setOpen, close } = useMenu('account');
  const box = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const navigate = useNavigate();
  const signOut = useSignOut();
  useDismiss(open, box, trigger, close);

  const go = (to: string) => {
    close();
    navigate(to);
  };
  const logout = () => {
    close();
    navigate('/login', { replace: true, state: { forceLogin: true } });
    signOut();
  };

  return (
    <div className="menu" ref={box}>
      <button
        ref={trigger}
        type="button"
        className="avatar-btn"
        aria-label="Account menu"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls="account-menu"
        onClick={() => setOpen(!open)}
      >
        <Avatar url={user?.avatarUrl ?? null} letter={initials(user?.firstName ?? '', user?.lastName ?? '', user?.email)} /* the profile's initials too (issue 50, P23) */ />
      </button>
      {open && (
        <div id="account-menu" className="menu__panel" role="menu" aria-label="Account" onKeyDown={moveMenuFocus}>
          <div className="menu__header">
            <p className="menu__greeting">Hi, {greetingName(user)}</p>
            {user?.email && <p className="menu__sub">{user.email}</p>}
          </div>
          <button type="button" role="menuitem" className="menu__item" onClick={() => go('/workspace/profile')} autoFocus>
            <IconUser size={18} /> Profile settings
          </button>
          <button type="button" role="menuitem" className="menu__item" onClick={logout}>
            <IconLogout size={18} /> Logout
          </button>
        </div>
      )}
    </div>
  );
}

/** Avatar image, or the uppercase initial when there is none. */
export function Avatar({ url, letter, size = 36 }: { url: string | null; letter: string; size?: number }) {
  return url ? (
    <img className="avatar" src={url} alt="" width={size} height={size} />
  ) : (
    <span className="avatar avatar--initial" style={{ width: size, height: size }} aria-hidden="true">
      {letter}
    </span>
  );
}
