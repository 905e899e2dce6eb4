import { describe, expect, it } from 'vitest';
import { formatInr, formatNumber, relativeTime } from './format';

describe('format', () => {
  const now = Date.parse('2026-01-10T12:00:00Z');
  it('relative time', () => {
    expect(relativeTime(now - 10_000, now)).toBe('just now');
    expect(relativeTime(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(relativeTime(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(relativeTime(now - 26 * 3_600_000, now)).toBe('yesterday');
    expect(relativeTime(new Date(now - 3 * 86_400_000).toISOString(), now)).toBe('3 days ago');
    expect(relativeTime('nonsense', now)).toBe('');
  });
  it('rupees and numbers', () => {
    expect(formatInr(1999)).toBe('₹1,999');
    expect(formatInr(0)).toBe('₹0');
    expect(formatNumber(10000)).toBe('10,000');
    expect(formatNumber(25000)).toBe('25,000');
  });
});
