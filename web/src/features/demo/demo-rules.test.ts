import { describe, expect, it } from 'vitest';
import { EXPOSURE, SHADOW, snapToStep } from './demo-rules';
import { demoDisplayName } from './demo-api';

describe('demo controls', () => {
  it('spec ranges and defaults', () => {
    expect(EXPOSURE).toEqual({ min: 0.6, max: 1.6, step: 0.05, initial: 1 });
    expect(SHADOW).toEqual({ min: 0, max: 1, step: 0.05, initial: 0.6 });
  });
  it('snaps slider values to the range and step', () => {
    expect(snapToStep(1.23, EXPOSURE)).toBe(1.25);
    expect(snapToStep(0.1, EXPOSURE)).toBe(0.6);
    expect(snapToStep(9, EXPOSURE)).toBe(1.6);
    expect(snapToStep(0.61, SHADOW)).toBe(0.6);
    expect(snapToStep(Number.NaN, SHADOW)).toBe(0);
  });
  it('title-cases the bundled sample ids', () => {
    expect(['bed', 'exploded-bed', 'table', 'wallbed', 'puffin', 'bumblee'].map(demoDisplayName)).toEqual(['Bed', 'Exploded Bed', 'Table', 'Wallbed', 'Puffin', 'Bumblee']);
    expect(demoDisplayName('wall__bed-XL')).toBe('Wall Bed XL');
  });
});
