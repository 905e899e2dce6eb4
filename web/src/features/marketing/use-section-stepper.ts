import { useEffect, useRef, type RefObject } from 'react';
import {
  isEditableTarget,
  nextIndex,
  SECTION_VISIBILITY_THRESHOLD,
  STEP_LOCK_MS,
  STEP_MIN_WIDTH_PX,
  stepForKey,
  stepForWheel,
} from './marketing-rules';

/**
 * At 900px and wider, wheel and keys move one full-screen section at a time with
 * smooth scrolling; a section counts as current once 60% of it is visible.
 */
export function useSectionStepper(container: RefObject<HTMLElement | null>) {
  const current = useRef(0);
  const lockedUntil = useRef(0);

  useEffect(() => {
    const root = container.current;
    if (!root) return;
    const sections = Array.from(root.querySelectorAll<HTMLElement>('[data-step-section]'));
    if (!sections.length) return;

    const observer =
      typeof IntersectionObserver !== 'undefined'
        ? new IntersectionObserver(
            (entries) => {
              for (const e of entries) {
                if (e.isIntersecting && e.intersectionRatio >= SECTION_VISIBILITY_THRESHOLD) {
                  const i = sections.indexOf(e.target as HTMLElement);
                  if (i >= 0) current.current = i;
                }
              }
            },
            { threshold: SECTION_VISIBILITY_THRESHOLD },
          )
        : null;
    sections.forEach((s) => observer?.observe(s));

    const enabled = () => window.innerWidth >= STEP_MIN_WIDTH_PX;
    const go = (step: -1 | 0 | 1): boolean => {
      if (!step) return false;
      const now = Date.now();
      if (now < lockedUntil.current) return true;
      const target = nextIndex(current.current, step, sections.length);
      if (target === current.current) return false;
      lockedUntil.current = now + STEP_LOCK_MS;
      current.current = target;
      const reduce = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
      sections[target].scrollIntoView({ behavior: reduce ? 'auto' : 'smooth', block: 'start' });
      return true;
    };

    const onWheel = (e: WheelEvent) => {
      if (!enabled() || isEditableTarget(e.target)) return;
      const step = stepForWheel(e.deltaY);
      if (!step) return;
      if (go(step)) e.preventDefault();
    };
    const onKey = (e: KeyboardEvent) => {
      if (!enabled() || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isEditableTarget(e.target)) return;
      const target = e.target as HTMLElement | null;
      if (e.key === ' ' && target && /^(button|a|summary)$/i.test(target.tagName)) return;
      if (go(stepForKey(e.key, e.shiftKey))) e.preventDefault();
    };
    window.addEventListener('wheel', onWheel, { passive: false });
    window.addEventListener('keydown', onKey);
    return () => {
      observer?.disconnect();
      window.removeEventListener('wheel', onWheel);
      window.removeEventListener('keydown', onKey);
    };
  }, [container]);
}
