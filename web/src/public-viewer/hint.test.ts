import { describe, expect, it } from 'vitest';
import { wireTouchHint } from './hint';

describe('gesture hint (P21)', () => {
  it('marks a phone or tablet so the page says "drag or pinch", and leaves a desktop alone', () => {
    const phone = document.createElement('body');
    wireTouchHint(true, phone);
    expect(phone).toHaveClass('p3d-touch');
    const desktop = document.createElement('body');
    wireTouchHint(false, desktop);
    expect(desktop).not.toHaveClass('p3d-touch');
  });
});
