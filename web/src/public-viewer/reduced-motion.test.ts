import { afterEach, describe, expect, it, vi } from 'vitest';
import { wireReducedMotion } from './reduced-motion';

function media(initial: boolean) {
  let matches = initial;
  let listener: (() => void) | undefined;
  vi.stubGlobal(
    'matchMedia',
    vi.fn(() => ({
      get matches() {
        return matches;
      },
      addEventListener: (_: string, l: () => void) => (listener = l),
    })),
  );
  return (next: boolean) => {
    matches = next;
    listener?.();
  };
}

describe('wireReducedMotion', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("stops the merchant's auto-spin for a shopper asking for reduced motion, and resumes it when they change their mind", () => {
    const set = media(true);
    const el = document.createElement('model-viewer');
    el.setAttribute('auto-rotate', '');
    wireReducedMotion(el);
    expect(el.hasAttribute('auto-rotate')).toBe(false);
    set(false);
    expect(el.hasAttribute('auto-rotate')).toBe(true);
  });

  it('never starts a spin the merchant turned off', () => {
    const set = media(false);
    const el = document.createElement('model-viewer');
    wireReducedMotion(el);
    set(false);
    expect(el.hasAttribute('auto-rotate')).toBe(false);
  });
});
