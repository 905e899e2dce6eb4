import { useEffect, useState } from 'react';

/** A confirmation that shows for `ms` (Saved. 1.6 s, Copied 1.2 s: spec §9), restarted by each flash. */
export function useFlag(ms: number): [boolean, () => void] {
  const [on, setOn] = useState(0);
  useEffect(() => {
    if (!on) return;
    const t = window.setTimeout(() => setOn(0), ms);
    return () => window.clearTimeout(t);
  }, [on, ms]);
  return [on > 0, () => setOn((n) => n + 1)];
}

/** Copied shows for 1.2 s, Saved. for 1.6 s (spec §9). */
export const COPIED_MS = 1200;
export const SAVED_MS = 1600;
