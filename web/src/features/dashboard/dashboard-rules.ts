/** Greeting cut-offs (spec §9): before 12 morning, before 18 afternoon, else evening. */
export function greeting(hour: number): 'Good Morning' | 'Good Afternoon' | 'Good Evening' {
  if (hour < 12) return 'Good Morning';
  if (hour < 18) return 'Good Afternoon';
  return 'Good Evening';
}

/** Browser flag recording that the dashboard has been seen before. */
export const FIRST_VISIT_KEY = 'photo3d.dashboardVisited';

export const FIRST_VISIT_MESSAGES = [
  'Welcome to Photo3D! Turn one product photo into an interactive 3D model you can share by link.',
  'Your first setup task: upload a product photo and we will build its 3D model.',
  'Add your first product, or open the demo models to see what a finished one looks like.',
] as const;

export const RETURNING_MESSAGES = [
  'Welcome back! Pick up your setup where you left off.',
  'Good to see you again. Your recent work is below, ready to resume.',
  'Ready to continue? Resume your latest products and galleries below.',
] as const;

/** One message from the first-visit or returning set; `random` is injectable for tests. */
export function pickMessage(firstVisit: boolean, random: () => number = Math.random): string {
  const set = firstVisit ? FIRST_VISIT_MESSAGES : RETURNING_MESSAGES;
  return set[Math.min(set.length - 1, Math.floor(random() * set.length))];
}

/** True until the dashboard has been seen in this browser. */
export function isFirstVisit(storage: Pick<Storage, 'getItem'> | null): boolean {
  if (!storage) return false;
  try {
    return !storage.getItem(FIRST_VISIT_KEY);
  } catch {
    return false;
  }
}

/** Records the visit so later visits get the returning messages. */
export function markVisited(storage: Pick<Storage, 'setItem'> | null): void {
  try {
    storage?.setItem(FIRST_VISIT_KEY, '1');
  } catch {
    /* flag only */
  }
}
