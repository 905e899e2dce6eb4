import type { Subscription } from '../subscription/subscription-api';

/**
 * What shoppers get from a product's published page right now (issue 50 item 6). A page
 * stays published after a downgrade, but it is served only while the owner has public
 * views left: the Free plan includes none, so there shoppers see "temporarily
 * unavailable". The workspace says so instead of "Live".
 */
export type PageState =
  | { kind: 'live'; label: 'Live' }
  | { kind: 'offline'; reason: 'plan' | 'views'; label: string; explanation: string };

type SubFacts = Pick<Subscription, 'effectivePlan' | 'publicViewsBalance'>;

/** The state of a published page (live), or null when it is not published or the subscription is not known yet. */
export function pageState(live: boolean, sub: SubFacts | undefined): PageState | null {
  if (!live || !sub) return null;
  if (sub.publicViewsBalance === null || sub.publicViewsBalance > 0) return { kind: 'live', label: 'Live' };
  if (sub.effectivePlan === 'free') {
    return {
      kind: 'offline',
      reason: 'plan',
      label: 'Offline — needs Pro',
      explanation:
        'Shoppers see “temporarily unavailable”: the Free plan includes no public views. The page is still published; upgrade to Pro to bring it back.',
    };
  }
  return {
    kind: 'offline',
    reason: 'views',
    label: 'Offline — views used up',
    explanation:
      'Shoppers see “temporarily unavailable”: your public views are used up. The page is still published; add a views pack to bring it back.',
  };
}
