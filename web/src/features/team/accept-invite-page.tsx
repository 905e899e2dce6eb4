import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { Logo } from '../../components/logo';
import { errorMessage } from '../../lib/api';
import { useAppDispatch } from '../../lib/hooks';
import { MIN_PASSWORD_LENGTH } from '../../entities/auth/auth-rules';
import { PasswordStrength } from '../../entities/auth/password-strength';
import { useAcceptInviteMutation, usePeekInviteQuery, type InvitePeek } from '../../entities/team/team-api';
import { errorCode, ROLE_HELP, ROLE_LABEL } from '../../entities/team/team-rules';
import { adoptSession } from '../../entities/team/use-workspace';

/** Said when the link carries no invitation at all. */
export const MSG_INVITE_MISSING = 'This invitation link is incomplete. Open the link from the invitation mail again, or ask the workspace owner to invite you again.';

/**
 * /accept-invite?invite=TOKEN (issue 51), outside the signed-in shell: what the invitation offers
 * (peek), then either a name and password for a new account or one click to join; the answer is
 * a session in the invited workspace, stored as a sign-in stores it, and its dashboard opens.
 */
export default function AcceptInvitePage() {
  const [params] = useSearchParams();
  const token = params.get('invite') ?? '';
  const { data: peek, isLoading, error } = usePeekInviteQuery(token, { skip: !token });
  return (
    <InviteLayout>
      <h1 className="auth-card__title">{peek ? `Join ${peek.workspaceName}` : 'Join a workspace'}</h1>
      {!token ? (
        <Alert tone="error">{MSG_INVITE_MISSING}</Alert>
      ) : isLoading ? (
        <p className="muted">Checking the invitation…</p>
      ) : error || !peek ? (
        <LinkProblem error={error} />
      ) : (
        <AcceptForm token={token} peek={peek} />
      )}
    </InviteLayout>
  );
}

/** Invalid, used, withdrawn or expired: the server's words, and where to go next. */
function LinkProblem({ error }: { error: unknown }) {
  const code = errorCode(error);
  return (
    <>
      <Alert tone="error">
        <span data-testid="invite-problem" data-code={code || undefined}>
          {errorMessage(error, 'This invitation could not be checked. Please try again.')}
        </span>
      </Alert>
      <p className="auth-card__footer">{code === 'invite_used' ? <Link to="/login">Go to sign in</Link> : <Link to="/">Photo3D home</Link>}</p>
    </>
  );
}

function AcceptForm({ token, peek }: { token: string; peek: InvitePeek }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [accept, { isLoading }] = useAcceptInviteMutation();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!peek.hasAccount) {
      if (!name.trim() || !password) return setProblem('Please fill in all fields');
      if (password.length < MIN_PASSWORD_LENGTH) return setProblem('Password must be at least 8 characters long');
    }
    setProblem(null);
    const res = await accept(peek.hasAccount ? { token } : { token, name: name.trim(), password });
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The invitation could not be accepted. Please try again.'));
    if (!adoptSession(dispatch, res.data, false)) return setProblem('The invitation was accepted, but no session came back. Sign in to open the workspace.');
    navigate('/my-home', { replace: true });
  };

  return (
    <form className="form" onSubmit={onSubmit} aria-label="Accept the invitation" noValidate>
      <p className="auth-card__subtitle" data-testid="invite-summary">
        {peek.workspaceName} invited {peek.email} as {ROLE_LABEL[peek.role]}.
      </p>
      <p className="muted">{ROLE_HELP[peek.role]}</p>
      {problem && <Alert tone="error">{problem}</Alert>}
      {peek.hasAccount ? (
        <p className="muted">You already have a Photo3D account with this address: joining adds {peek.workspaceName} to your workspaces.</p>
      ) : (
        <>
          <div className="field">
            <label htmlFor="invite-email">Email Address</label>
            <input id="invite-email" type="email" value={peek.email} readOnly />
          </div>
          <div className="field">
            <label htmlFor="invite-name">Your name</label>
            <input id="invite-name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} disabled={isLoading} />
          </div>
          <div className="field">
            <label htmlFor="invite-password">Password</label>
            <input
              id="invite-password"
              type="password"
              autoComplete="new-password"
              aria-describedby="invite-password-help"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              disabled={isLoading}
            />
            <PasswordStrength id="invite-password-help" password={password} />
          </div>
        </>
      )}
      <button type="submit" className="btn btn--primary btn--block" disabled={isLoading}>
        {isLoading ? 'Joining…' : peek.hasAccount ? `Join ${peek.workspaceName}` : 'Create account and join'}
      </button>
    </form>
  );
}

/** The sign-in screens' two-pane frame, for a page outside the signed-in shell. */
function InviteLayout({ children }: { children: ReactNode }) {
  return (
    <div className="auth-layout">
      <aside className="auth-layout__brand">
        <Link to="/" className="auth-layout__logo" aria-label="Photo3D home">
          <Logo />
        </Link>
        <p className="auth-layout__tagline">Photo → 3D → Link</p>
        <p className="auth-layout__lead">Work on product pages together: editors build them, reviewers approve what goes live.</p>
      </aside>
      <main className="auth-layout__main">
        <div className="auth-card">{children}</div>
      </main>
    </div>
  );
}
