import { useEffect, useId, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { useAppDispatch } from '../../lib/hooks';
import {
  useChangeRoleMutation,
  useInviteMemberMutation,
  useLeaveWorkspaceMutation,
  useRemoveMemberMutation,
  useRevokeInviteMutation,
  useSetApprovalMailMutation,
  useSetRequireApprovalMutation,
  useTeamMembersQuery,
  useTransferOwnershipMutation,
  type InviteRole,
  type Member,
  type Role,
  type Team,
} from '../../entities/team/team-api';
import { fallbackWorkspace, hasFreeSeat, INVITE_ROLES, lockedPagesText, ROLE_HELP, ROLE_LABEL, seatsText, youAre } from '../../entities/team/team-rules';
import { fetchWorkspaces, useCurrentUserId, useSwitchWorkspace } from '../../entities/team/use-workspace';
import './team.css';

/** A change waiting for the owner's confirmation. */
type Pending = { kind: 'remove' | 'transfer'; member: Member } | { kind: 'leave' } | null;

/**
 * /workspace/team (issue 51): the workspace's members and their roles, invitations, seats, the
 * approval rule and each person's own approval mail. The owner manages; everyone else sees the
 * team, chooses their mail and may leave.
 */
export default function TeamPage() {
  const { data: team, isLoading, error } = useTeamMembersQuery(undefined, { refetchOnMountOrArgChange: true });
  const userId = useCurrentUserId();
  if (isLoading) return <LoadingScreen />;
  if (error || !team) {
    return (
      <div className="page">
        <h1 className="page__title">Team</h1>
        <Alert tone="error">{errorMessage(error, 'The team could not be loaded.')}</Alert>
      </div>
    );
  }
  const me = team.members.find((m) => m.userId === userId) ?? null;
  return <TeamView team={team} me={me} />;
}

function TeamView({ team, me }: { team: Team; me: Member | null }) {
  const isOwner = me?.role === 'owner';
  const [pending, setPending] = useState<Pending>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [remove, { isLoading: removing }] = useRemoveMemberMutation();
  const [leave, { isLoading: leaving }] = useLeaveWorkspaceMutation();
  const [transfer, { isLoading: transferring }] = useTransferOwnershipMutation();
  const [switchTo, { isLoading: switching }] = useSwitchWorkspace();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();

  const confirm = async () => {
    if (!pending) return;
    setProblem(null);
    setNotice(null);
    if (pending.kind === 'leave') {
      if (!me) return;
      const res = await leave(me.userId);
      if ('error' in res && res.error) {
        setPending(null);
        return setProblem(errorMessage(res.error, 'You could not leave the workspace. Please try again.'));
      }
      // Out of this workspace: into the account's own (or the first left), and its dashboard.
      try {
        const target = fallbackWorkspace(await fetchWorkspaces(dispatch), team.workspaceId);
        if (target) await switchTo(target.id, target);
        navigate('/my-home', { replace: true });
      } catch (e) {
        setPending(null);
        setProblem(errorMessage(e, 'You left the workspace, but your own could not be opened. Sign in again.'));
      }
      return;
    }
    const { member } = pending;
    const res = pending.kind === 'remove' ? await remove(member.userId) : await transfer(member.userId);
    setPending(null);
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The change could not be made. Please try again.'));
    setNotice(pending.kind === 'remove' ? `${member.name || member.email} was removed from the workspace.` : `${member.name || member.email} is now the owner. You are an editor.`);
  };

  const busy = removing || leaving || transferring || switching;
  return (
    <div className="page team-page">
      <header className="page__header">
        <div>
          <h1 className="page__title">Team</h1>
          <p className="page__subtitle">
            {team.name}
            {me ? ` · ${youAre(me.role)}` : ''}
          </p>
        </div>
        <p className="team-page__seats" data-testid="team-seats">
          {seatsText(team)}
        </p>
      </header>
      {notice && <Alert tone="success">{notice}</Alert>}
      {problem && <Alert tone="error">{problem}</Alert>}

      <section className="card" aria-labelledby="team-members-title">
        <h2 id="team-members-title" className="section-title">
          Members
        </h2>
        <ul className="team-list" aria-label="Members">
          {team.members.map((m) => (
            <MemberRow
              key={m.userId}
              member={m}
              isMe={m.userId === me?.userId}
              canManage={isOwner && m.userId !== me?.userId && m.role !== 'owner'}
              onRemove={() => setPending({ kind: 'remove', member: m })}
              onTransfer={() => setPending({ kind: 'transfer', member: m })}
            />
          ))}
        </ul>
      </section>

      {isOwner && <InviteSection team={team} />}
      <ApprovalSettings team={team} me={me} isOwner={isOwner} />

      {me && !isOwner && (
        <section className="card" aria-labelledby="team-leave-title">
          <h2 id="team-leave-title" className="section-title">
            Leave workspace
          </h2>
          <p className="muted">You lose access to {team.name}. What you made stays with the workspace. The owner can invite you again.</p>
          <div>
            <button type="button" className="btn btn--danger" onClick={() => setPending({ kind: 'leave' })}>
              Leave workspace
            </button>
          </div>
        </section>
      )}

      {pending && (
        <ConfirmDialog
          title={pending.kind === 'leave' ? `Leave ${team.name}?` : pending.kind === 'remove' ? `Remove ${pending.member.name || pending.member.email}?` : `Make ${pending.member.name || pending.member.email} the owner?`}
          confirmLabel={pending.kind === 'leave' ? 'Leave workspace' : pending.kind === 'remove' ? 'Remove member' : 'Transfer ownership'}
          busyLabel="Working…"
          busy={busy}
          onConfirm={() => void confirm()}
          onCancel={() => setPending(null)}
        >
          {pending.kind === 'leave' ? (
            <p>You will no longer see this workspace. Your own workspace opens instead.</p>
          ) : pending.kind === 'remove' ? (
            <p>They lose access to {team.name} on their next click. What they made stays with the workspace.</p>
          ) : (
            <p>They get billing, members and settings. You stay in the workspace as an editor; only the new owner can make you owner again.</p>
          )}
        </ConfirmDialog>
      )}
    </div>
  );
}

function MemberRow({ member: m, isMe, canManage, onRemove, onTransfer }: { member: Member; isMe: boolean; canManage: boolean; onRemove: () => void; onTransfer: () => void }) {
  const id = useId();
  const [changeRole, { isLoading, error }] = useChangeRoleMutation();
  const who = m.name || m.email;
  return (
    <li className="team-list__item" aria-labelledby={`${id}-name`} data-testid="team-member">
      <div className="team-list__who">
        <p id={`${id}-name`} className="team-list__name">
          {who}
          {isMe && <span className="muted"> (you)</span>}
        </p>
        <p className="muted team-list__sub">
          {m.email}
          {m.joinedAt && (
            <>
              {' · joined '}
              <time dateTime={m.joinedAt}>{relativeTime(m.joinedAt)}</time>
            </>
          )}
        </p>
        {error && <Alert tone="error">{errorMessage(error, 'The role could not be changed.')}</Alert>}
      </div>
      <div className="team-list__actions">
        {canManage ? (
          <>
            <label htmlFor={`${id}-role`} className="visually-hidden">
              Role of {who}
            </label>
            <select id={`${id}-role`} value={m.role} disabled={isLoading} onChange={(e) => void changeRole({ userId: m.userId, role: e.target.value as Role })} title={ROLE_HELP[m.role]}>
              {INVITE_ROLES.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABEL[r]}
                </option>
              ))}
            </select>
            <button type="button" className="btn btn--ghost btn--sm" onClick={onTransfer} aria-label={`Make ${who} the owner`}>
              Make owner
            </button>
            <button type="button" className="btn btn--ghost btn--sm" onClick={onRemove} aria-label={`Remove ${who}`}>
              Remove
            </button>
          </>
        ) : (
          <span className={`badge team-role team-role--${m.role}`} title={ROLE_HELP[m.role]} data-testid="member-role">
            {ROLE_LABEL[m.role]}
          </span>
        )}
      </div>
    </li>
  );
}

function InviteSection({ team }: { team: Team }) {
  const id = useId();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InviteRole>('editor');
  const [sent, setSent] = useState<string | null>(null);
  const [invite, { isLoading, error, reset }] = useInviteMemberMutation();
  const [revoke, { error: revokeError }] = useRevokeInviteMutation();
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSent(null);
    const res = await invite({ email: email.trim(), role });
    if ('data' in res && res.data) {
      setSent(`Invitation sent to ${res.data.email || email.trim()} as ${ROLE_LABEL[role].toLowerCase()}.`);
      setEmail('');
    }
  };
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="section-title">
        Invite a teammate
      </h2>
      <form className="form team-invite" onSubmit={onSubmit} aria-label="Invite a teammate" noValidate>
        <div className="field team-invite__email">
          <label htmlFor={`${id}-email`}>Email address</label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              if (error) reset();
            }}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-role`}>Role</label>
          <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.target.value as InviteRole)} aria-describedby={`${id}-role-help`}>
            {INVITE_ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABEL[r]}
              </option>
            ))}
          </select>
          <p id={`${id}-role-help`} className="field__help">
            {ROLE_HELP[role]}
          </p>
        </div>
        <div className="team-invite__submit">
          <button type="submit" className="btn btn--primary" disabled={isLoading || !email.trim()}>
            {isLoading ? 'Sending…' : 'Send invitation'}
          </button>
        </div>
      </form>
      {!hasFreeSeat(team) && !error && <p className="muted">{seatsText(team)}: the next invitation needs a free seat.</p>}
      {error && <Alert tone="error">{errorMessage(error, 'The invitation could not be sent.')}</Alert>}
      {sent && <Alert tone="success">{sent}</Alert>}
      <h3 className="team-page__subhead">Open invitations</h3>
      {revokeError && <Alert tone="error">{errorMessage(revokeError, 'The invitation could not be revoked.')}</Alert>}
      {team.invites.length === 0 ? (
        <p className="muted">No open invitations.</p>
      ) : (
        <ul className="team-list" aria-label="Open invitations">
          {team.invites.map((i) => (
            <li key={i.id} className="team-list__item" data-testid="team-invite">
              <div className="team-list__who">
                <p className="team-list__name">{i.email}</p>
                <p className="muted team-list__sub">
                  {ROLE_LABEL[i.role]} · expires <time dateTime={i.expiresAt}>{new Date(i.expiresAt).toLocaleDateString('en-IN', { day: 'numeric', month: 'short', year: 'numeric' })}</time>
                </p>
              </div>
              <div className="team-list__actions">
                <button type="button" className="btn btn--ghost btn--sm" onClick={() => void revoke(i.id)} aria-label={`Revoke invitation for ${i.email}`}>
                  Revoke
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ApprovalSettings({ team, me, isOwner }: { team: Team; me: Member | null; isOwner: boolean }) {
  const [setRule, { isLoading: savingRule, error: ruleError }] = useSetRequireApprovalMutation();
  const [setMail, { isLoading: savingMail, error: mailError }] = useSetApprovalMailMutation();
  const [locked, setLocked] = useState<string | null>(null);
  // Each toggle shows the choice at once and keeps it until the server's team says the same
  // (or puts it back when the server refuses).
  const rule = useOptimistic(team.requireApproval);
  const mail = useOptimistic(me?.approvalMail ?? false);
  const toggleRule = async (on: boolean) => {
    setLocked(null);
    rule.set(on);
    const res = await setRule(on);
    if ('error' in res && res.error) return rule.set(null);
    if (res.data && on) setLocked(lockedPagesText(res.data.lockedPages));
  };
  const toggleMail = async (on: boolean) => {
    mail.set(on);
    const res = await setMail(on);
    if ('error' in res && res.error) mail.set(null);
  };
  return (
    <section className="card" aria-labelledby="team-approvals-title">
      <h2 id="team-approvals-title" className="section-title">
        Approvals
      </h2>
      {isOwner ? (
        <>
          <label className="checkbox">
            <input type="checkbox" checked={rule.value} disabled={savingRule} onChange={(e) => void toggleRule(e.target.checked)} />
            Require approval before publishing
          </label>
          <p className="muted">An editor's Publish becomes a request that you or a reviewer approve. Turning this on locks every live page to what shoppers see now.</p>
          {locked && (
            <p role="status" className="team-page__status" data-testid="locked-pages">
              {locked}
            </p>
          )}
          {ruleError && <Alert tone="error">{errorMessage(ruleError, 'The setting could not be saved.')}</Alert>}
        </>
      ) : (
        <p className="muted" data-testid="approval-rule">
          {team.requireApproval ? 'Publishing in this workspace needs the approval of the owner or a reviewer.' : 'Publishing in this workspace does not need approval.'}
        </p>
      )}
      {me && (
        <>
          <label className="checkbox">
            <input type="checkbox" checked={mail.value} disabled={savingMail} onChange={(e) => void toggleMail(e.target.checked)} />
            Email me about approvals
          </label>
          <p className="muted">Requests to decide, and decisions on yours. Off unless you turn it on.</p>
          {mailError && <Alert tone="error">{errorMessage(mailError, 'Your choice could not be saved.')}</Alert>}
        </>
      )}
    </section>
  );
}

/** A server value shown as the person just chose it, until the server's copy agrees. */
function useOptimistic(server: boolean) {
  const [chosen, setChosen] = useState<boolean | null>(null);
  useEffect(() => {
    if (chosen !== null && chosen === server) setChosen(null);
  }, [chosen, server]);
  return { value: chosen ?? server, set: setChosen };
}
