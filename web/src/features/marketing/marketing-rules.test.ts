import { describe, expect, it } from 'vitest';
import { BLOG_POSTS, isEditableTarget, marketingLinks, nextIndex, SECTION_VISIBILITY_THRESHOLD, STEP_LOCK_MS, STEP_MIN_WIDTH_PX, stepForKey, stepForWheel, WHEEL_DELTA_THRESHOLD } from './marketing-rules';

describe('landing stepping', () => {
  it('constants', () => {
    expect([STEP_MIN_WIDTH_PX, WHEEL_DELTA_THRESHOLD, STEP_LOCK_MS, SECTION_VISIBILITY_THRESHOLD]).toEqual([900, 8, 800, 0.6]);
  });
  it('keys', () => {
    expect(stepForKey('ArrowDown')).toBe(1);
    expect(stepForKey('PageDown')).toBe(1);
    expect(stepForKey(' ')).toBe(1);
    expect(stepForKey(' ', true)).toBe(-1);
    expect(stepForKey('ArrowUp')).toBe(-1);
    expect(stepForKey('PageUp')).toBe(-1);
    expect(stepForKey('Enter')).toBe(0);
  });
  it('wheel threshold 8', () => {
    expect(stepForWheel(7)).toBe(0);
    expect(stepForWheel(-7.9)).toBe(0);
    expect(stepForWheel(8)).toBe(1);
    expect(stepForWheel(-40)).toBe(-1);
  });
  it('inputs are exempt', () => {
    expect(isEditableTarget(document.createElement('input'))).toBe(true);
    expect(isEditableTarget(document.createElement('textarea'))).toBe(true);
    expect(isEditableTarget(document.createElement('div'))).toBe(false);
    expect(isEditableTarget(null)).toBe(false);
  });
  it('clamps the index', () => {
    expect(nextIndex(0, -1, 4)).toBe(0);
    expect(nextIndex(3, 1, 4)).toBe(3);
    expect(nextIndex(1, 1, 4)).toBe(2);
  });
});

describe('marketing menu (issue 50, P1)', () => {
  it('leaves Blog out while it has no posts, and adds it with the first one', () => {
    expect(BLOG_POSTS).toHaveLength(0);
    expect(marketingLinks().map((l) => l.label)).toEqual(['Home', 'Demo']);
    expect(marketingLinks([{ slug: 'hello', title: 'Hello' }]).map((l) => l.label)).toEqual(['Home', 'Demo', 'Blog']);
  });
});
