import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { useGetSubscriptionQuery } from '../subscription/subscription-api';
import { pageState } from './page-state';

/** "Live", or why a published page is offline ("Offline — needs Pro"); nothing when unpublished. */
export function PageStateBadge({ live, className = '', testId }: { live: boolean; className?: string; testId?: string }) {
  const { data: sub } = useGetSubscriptionQuery(undefined, { skip: !live });
  const state = pageState(live, sub);
  if (!state) return null;
  const tone = state.kind === 'live' ? 'badge--live' : 'badge--offline';
  return (
    <span
      className={`badge ${tone} ${className}`.trim()}
      data-testid={testId}
      data-state={state.kind}
      title={state.kind === 'offline' ? state.explanation : undefined}
    >
      {state.label}
    </span>
  );
}

/** On the product page: why its published page is offline and what brings it back. */
export function PageOfflineAlert({ live }: { live: boolean }) {
  const { data: sub } = useGetSubscriptionQuery(undefined, { skip: !live });
  const state = pageState(live, sub);
  if (state?.kind !== 'offline') return null;
  return (
    <Alert tone="info">
      <span data-testid="page-offline">{state.explanation}</span>{' '}
      <Link to="/workspace/subscription">{state.reason === 'plan' ? 'See plans' : 'Add views'}</Link>
    </Alert>
  );
}
