import { describe, expect, it } from 'vitest';
import { capPixelRatio } from './pixel-ratio';

/** A window-like object whose devicePixelRatio is a getter, as in a browser. */
function fakeWindow(ratio: { value: number }): Window {
  const proto = {};
  Object.defineProperty(proto, 'devicePixelRatio', { configurable: true, get: () => ratio.value });
  return Object.create(proto) as Window;
}

describe('capPixelRatio', () => {
  it('renders a DPR 3 phone at 2 and follows zoom below the cap', () => {
    const ratio = { value: 3 };
    const win = fakeWindow(ratio);
    capPixelRatio(win, 2);
    expect(win.devicePixelRatio).toBe(2);
    ratio.value = 1.5; // zoomed out
    expect(win.devicePixelRatio).toBe(1.5);
  });

  it('leaves screens at or under the cap alone', () => {
    const ratio = { value: 2 };
    const win = fakeWindow(ratio);
    capPixelRatio(win, 2);
    expect(Object.getOwnPropertyDescriptor(win, 'devicePixelRatio')).toBeUndefined();
    expect(win.devicePixelRatio).toBe(2);
  });
});
