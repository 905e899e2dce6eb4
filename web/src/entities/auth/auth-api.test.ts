import { describe, expect, it } from 'vitest';
import { toAuthRecord } from './auth-api';

describe('toAuthRecord (spec §7)', () => {
  const now = 1_000;
  it('reads data.token, token or access_token', () => {
    expect(toAuthRecord({ data: { token: 'a', user: { id: 1, email: 'x@y' } }, expiresAt: 5_000 }, now)).toMatchObject({ token: 'a', expiresAt: 5_000 });
    expect(toAuthRecord({ token: 'b', user: { email: 'x@y' }, expiresAt: 9_000 }, now)).toMatchObject({ token: 'b', expiresAt: 9_000 });
    expect(toAuthRecord({ access_token: 'c' }, now)).toMatchObject({ token: 'c', user: null, expiresAt: now + 86_400_000 });
  });
  it('is null without a token', () => {
    expect(toAuthRecord({ user: {} }, now)).toBeNull();
    expect(toAuthRecord(null, now)).toBeNull();
  });
});
