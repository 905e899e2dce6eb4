import { describe, expect, it } from 'vitest';
import { barWidth, count, featureLabel, geoText, per1kText, percent, rangeFromQuery, regionLabel, secondaryText, pp, variantText } from './analytics-rules';

describe('business overview rules', () => {
  it('reads the range from the query string, default 7d', () => {
    expect(rangeFromQuery(new URLSearchParams(''))).toBe('7d');
    expect(rangeFromQuery(new URLSearchParams('range=30d'))).toBe('30d');
    expect(rangeFromQuery(new URLSearchParams('range=1y'))).toBe('7d');
    expect(rangeFromQuery(new URLSearchParams('from=2026-01-01&to=2026-01-31'))).toBe('custom');
  });
  it('clamps funnel widths to 30–100 % of the first step', () => {
    expect(barWidth(150, 150)).toBe(100);
    expect(barWidth(75, 150)).toBe(50);
    expect(barWidth(3, 150)).toBe(30);
    expect(barWidth(0, 0)).toBe(30);
  });
  it('shows rates with one decimal and secondary KPIs as a dash under 100 shoppers', () => {
    expect(percent(1, 3)).toBe('33.3%');
    expect(secondaryText(99, 12.5, pp)).toBe('—');
    expect(secondaryText(100, 12.5, pp)).toBe('+12.5 pp');
    expect(secondaryText(500, null, pp)).toBe('—');
  });
});

describe('labels (issue 29 item 11)', () => {
  it('never shows ZZ as a region and says what the geo number is', () => {
    expect(regionLabel('ZZ')).toBe('Unknown region');
    expect(regionLabel('')).toBe('Unknown region');
    expect(regionLabel('in')).toBe('IN');
    expect(geoText({ region: 'ZZ', value: 1000 })).toBe('Unknown region · 1,000.0 engaged per 1,000');
    expect(geoText(null)).toBe('—');
  });
});

describe('hotspots and variants by name (issue 29 item 11)', () => {
  it('shows the server-resolved titles, never a hotspot or variant id', () => {
    expect(featureLabel('hotspot:h2', 'Hotspot: Hand-thrown rim')).toBe('Hotspot: Hand-thrown rim');
    expect(featureLabel('hotspot:h2')).not.toContain('h2');
    expect(featureLabel('ar')).toBe('AR view');
    expect(variantText({ option: 'v2', label: 'Terracotta · Ceramic vase', pp: 12.5 })).toBe('Terracotta · Ceramic vase +12.5 pp');
    expect(variantText({ option: 'v2', pp: -1 })).not.toContain('v2');
    expect(variantText(null)).toBe('—');
  });
});

describe('units (issue 50 item 7)', () => {
  it('gives every value its unit', () => {
    expect(count(150, 'shoppers')).toBe('150 shoppers');
    expect(count(1, 'shoppers')).toBe('1 shopper');
    expect(count(1200, 'clicks')).toBe('1,200 clicks');
    expect(per1kText(428.6)).toBe('428.6 engaged per 1,000');
    expect(featureLabel('other')).toBe('Other features');
  });
});
