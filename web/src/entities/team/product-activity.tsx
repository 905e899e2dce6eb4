import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import { useProductActivityQuery } from './team-api';
import { actorName } from './team-rules';
import './team.css';

/**
 * A product's activity (issue 51): who did what to it, newest first — "Ada Editor requested
 * approval for v1", "Ravi Reviewer approved v1" with the reviewer's comment under it.
 */
export function ActivityPanel({ productId }: { productId: string }) {
  const { data, isLoading, error } = useProductActivityQuery(productId, { refetchOnMountOrArgChange: true });
  const items = data ?? [];
  return (
    <section className="card" aria-labelledby="activity-title">
      <h2 id="activity-title" className="section-title">
        Activity
      </h2>
      {isLoading ? (
        <p className="muted">Loading…</p>
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'The activity could not be loaded.')}</Alert>
      ) : items.length === 0 ? (
        <p className="muted">Nothing has happened to this product yet.</p>
      ) : (
        <ol className="activity" aria-label="Activity" data-testid="activity">
          {items.map((e, i) => (
            <li key={`${e.at}-${e.kind}-${i}`} className="activity__item" data-kind={e.kind}>
              <div className="activity__body">
                <p className="activity__line">
                  <strong>{actorName(e.actor)}</strong> {e.action}
                </p>
                {e.detail && <p className="activity__detail">{e.detail}</p>}
              </div>
              {e.at && (
                <time className="muted activity__time" dateTime={e.at} title={new Date(e.at).toLocaleString()}>
                  {relativeTime(e.at)}
                </time>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
