import { describe, expect, it } from 'vitest';
import { FIRST_VISIT_MESSAGES, greeting, isFirstVisit, markVisited, pickMessage, RETURNING_MESSAGES } from './dashboard-rules';

describe('greeting (cut-offs 12 and 18)', () => {
  it.each([
    [0, 'Good Morning'],
    [11, 'Good Morning'],
    [12, 'Good Afternoon'],
    [17, 'Good Afternoon'],
    [18, 'Good Evening'],
    [23, 'Good Evening'],
  ])('%i h → %s', (h, g) => expect(greeting(h)).toBe(g));
});

describe('dashboard message', () => {
  it('comes from the first-visit set, then the returning set', () => {
    expect(isFirstVisit(localStorage)).toBe(true);
    expect(FIRST_VISIT_MESSAGES).toContain(pickMessage(true, () => 0.5));
    markVisited(localStorage);
    expect(isFirstVisit(localStorage)).toBe(false);
    expect(RETURNING_MESSAGES).toContain(pickMessage(false, () => 0.99));
    expect(pickMessage(false, () => 0)).toBe(RETURNING_MESSAGES[0]);
  });
});
