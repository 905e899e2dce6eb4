import { useState } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { IconGallery } from '../../components/icons';
import { errorMessage } from '../../lib/api';
import { useStartTrialMutation, type Subscription } from '../../entities/subscription/subscription-api';
import { TRIAL_DEFAULT_DAYS } from '../../entities/subscription/subscription-rules';
import { PRO_GATE_TEXT, PRO_GATE_TITLE } from './gallery-rules';
import { useWorkspaceRole } from '../../entities/team/use-workspace';

/** Shown instead of galleries on a plan without them: Upgrade to Pro, or Start free trial (7 days) when no trial was ever started. */
export function ProGate({ sub }: { sub: Subscription | undefined }) {
  const [startTrial, { isLoading }] = useStartTrialMutation();
  const [problem, setProblem] = useState<string | null>(null);
  // Teams (issue 51): the plan is the owner's to change; the others are told to ask.
  const { isOwner } = useWorkspaceRole();
  const canTrial = isOwner && (sub ? sub.plan === 'free' && !sub.trialActive && !sub.trialEverStarted : false);
  return (
    <div className="card empty-state" data-testid="gallery-pro-gate">
      <IconGallery size={40} />
      <h2 className="empty-state__title">{PRO_GATE_TITLE}</h2>
      <p className="muted">{PRO_GATE_TEXT}</p>
      {!isOwner && <p className="muted" data-testid="gallery-pro-gate-owner">Ask the workspace owner to upgrade this workspace to Pro.</p>}
      {problem && <Alert tone="error">{problem}</Alert>}
      {isOwner && (
        <div className="btn-row" style={{ justifyContent: 'center' }}>
          <Link to="/workspace/subscription" className="btn btn--primary">
            Upgrade to Pro
          </Link>
          {canTrial && (
            <button
              type="button"
              className="btn btn--secondary"
              disabled={isLoading}
              onClick={async () => {
                setProblem(null);
                const res = await startTrial({ days: TRIAL_DEFAULT_DAYS });
                if ('error' in res && res.error) setProblem(errorMessage(res.error, 'The trial could not be started.'));
              }}
            >
              Start free trial ({TRIAL_DEFAULT_DAYS} days)
            </button>
          )}
        </div>
      )}
    </div>
  );
}
