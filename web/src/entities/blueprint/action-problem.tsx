import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import type { ActionProblem } from './use-blueprint-actions';

/** A download or share failure; plan limits link to the subscription page. */
export function ActionProblemAlert({ problem, onNavigate }: { problem: ActionProblem; onNavigate?: () => void }) {
  return (
    <Alert tone="error">
      {problem.message}
      {problem.upgrade && (
        <>
          {' '}
          <Link to="/workspace/subscription" onClick={onNavigate}>
            Upgrade your plan
          </Link>
        </>
      )}
    </Alert>
  );
}
