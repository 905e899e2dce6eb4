/** Demo viewer controls (spec §2 Demo viewer, §5 sliders, §9). */
export const EXPOSURE = { min: 0.6, max: 1.6, step: 0.05, initial: 1 } as const;
export const SHADOW = { min: 0, max: 1, step: 0.05, initial: 0.6 } as const;

export type DemoBackground = 'light' | 'white';

/** Keeps a slider value inside its range and on its step grid. */
export function snapToStep(value: number, range: { min: number; max: number; step: number }): number {
  if (!Number.isFinite(value)) return range.min;
  const clamped = Math.min(range.max, Math.max(range.min, value));
  const steps = Math.round((clamped - range.min) / range.step);
  return Number((range.min + steps * range.step).toFixed(4));
}
