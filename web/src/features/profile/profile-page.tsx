import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { useAppSelector } from '../../lib/hooks';
import { selectAuthUser } from '../../lib/session';
import { useGetMeQuery, useRemoveAvatarMutation, useUpdateProfileMutation, useUploadAvatarMutation } from '../../lib/session-api';
import { initials } from '../../lib/user';
import { EMAIL_NOTE, EmailChangeDialog } from './email-change-dialog';
import { PrivacyPanel } from './privacy-panel';
import { SecurityPanel } from './security-panel';

const AVATAR_TYPES = 'image/png,image/jpeg';

/** /workspace/profile — name and avatar of the signed-in user. */
export default function ProfilePage() {
  const stored = useAppSelector(selectAuthUser);
  const { data: me, isLoading } = useGetMeQuery();
  const user = me ?? stored;
  const [update, { isLoading: saving }] = useUpdateProfileMutation();
  const [uploadAvatar, { isLoading: uploading }] = useUploadAvatarMutation();
  const [removeAvatar, { isLoading: removing }] = useRemoveAvatarMutation();
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const [changingEmail, setChangingEmail] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!user) return;
    setFirstName(user.firstName ?? '');
    setLastName(user.lastName ?? '');
  }, [user?.firstName, user?.lastName]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!user && isLoading) return <LoadingScreen />;
  if (!user) return <Alert tone="error">Your profile could not be loaded.</Alert>;

  const dirty = firstName !== user.firstName || lastName !== user.lastName;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setStatus(null);
    try {
      await update({ firstName: firstName.trim(), lastName: lastName.trim(), avatarUrl: user?.avatarUrl ?? null }).unwrap();
      setStatus({ tone: 'success', text: 'Profile saved' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'Your profile could not be saved. Please try again.') });
    }
  }

  async function onAvatar(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setStatus(null);
    try {
      await uploadAvatar(file).unwrap();
      setStatus({ tone: 'success', text: 'Photo updated' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'The photo could not be uploaded. Please try again.') });
    }
  }

  async function onRemove() {
    setStatus(null);
    try {
      await removeAvatar().unwrap();
      setStatus({ tone: 'success', text: 'Photo removed' });
    } catch (err) {
      setStatus({ tone: 'error', text: errorMessage(err, 'The photo could not be removed. Please try again.') });
    }
  }

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1 className="page__title">My Profile</h1>
          <p className="page__subtitle">How you appear in the workspace.</p>
        </div>
      </header>
      <form className="card form profile-form" onSubmit={onSubmit} noValidate>
        {status && <Alert tone={status.tone}>{status.text}</Alert>}
        <div className="avatar-field">
          {user.avatarUrl ? (
            <img className="avatar avatar--lg" src={user.avatarUrl} alt="Your profile photo" width={96} height={96} />
          ) : (
            <span className="avatar avatar--initial avatar--lg" role="img" aria-label="Your initials">
              {initials(firstName || user.firstName, lastName || user.lastName, user.email)}
            </span>
          )}
          <div>
            <p className="field__label">Profile photo</p>
            <p className="field__help">PNG or JPG, max 5MB. A square image of at least 256 × 256 is recommended.</p>
            <div className="btn-row">
              <button type="button" className="btn btn--secondary btn--sm" onClick={() => fileInput.current?.click()} disabled={uploading}>
                {uploading ? 'Uploading...' : 'Upload photo'}
              </button>
              {user.avatarUrl && (
                <button type="button" className="btn btn--ghost btn--sm" onClick={onRemove} disabled={removing}>
                  Remove
                </button>
              )}
            </div>
            <input ref={fileInput} type="file" accept={AVATAR_TYPES} className="visually-hidden" tabIndex={-1} aria-label="Profile photo file" onChange={onAvatar} />
          </div>
        </div>
        <div className="form__grid">
          <div className="field">
            <label htmlFor="profile-first">First name</label>
            <input id="profile-first" autoComplete="given-name" value={firstName} onChange={(e) => setFirstName(e.target.value)} disabled={saving} />
          </div>
          <div className="field">
            <label htmlFor="profile-last">Last name</label>
            <input id="profile-last" autoComplete="family-name" value={lastName} onChange={(e) => setLastName(e.target.value)} disabled={saving} />
          </div>
        </div>
        <div className="field">
          <label htmlFor="profile-email">Email</label>
          <input id="profile-email" type="email" value={user.email} readOnly aria-describedby="profile-email-help" />
          {/* The spec's read-only field; its note was "managed by the auth system", which
              stopped being true when the address became changeable here (issue 50 item 13). */}
          <p id="profile-email-help" className="field__help">
            {EMAIL_NOTE}
          </p>
          <div className="btn-row">
            <button type="button" className="btn btn--secondary btn--sm" onClick={() => setChangingEmail(true)}>
              Change email
            </button>
          </div>
        </div>
        <div className="btn-row btn-row--end">
          <button
            type="button"
            className="btn btn--ghost"
            onClick={() => {
              setFirstName(user.firstName);
              setLastName(user.lastName);
              setStatus(null);
            }}
            disabled={saving || !dirty}
          >
            Reset changes
          </button>
          <button type="submit" className="btn btn--primary" disabled={saving}>
            {saving ? 'Saving...' : 'Save profile'}
          </button>
        </div>
      </form>
      {changingEmail && <EmailChangeDialog current={user.email} onClose={() => setChangingEmail(false)} />}
      <SecurityPanel />
      <PrivacyPanel />
    </div>
  );
}
