import { describe, expect, it } from 'vitest';
import { checksOf, mintBinding, nextOf, stateMatches } from './sign-in-binding.ts';

describe('the sign-in binding', () => {
  it('derives a different state, nonce and verifier for each browser, none of them the cookie', () => {
    const one = mintBinding('/organizations');
    const two = mintBinding('/organizations');
    const checks = checksOf(one);
    expect(checks).not.toEqual(checksOf(two));
    expect(new Set(Object.values(checks)).size).toBe(3);
    for (const value of Object.values(checks)) {
      expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(one).not.toContain(value);
    }
    expect(nextOf(one)).toBe('/organizations');
  });

  it('accepts only the state this cookie makes', () => {
    const cookie = mintBinding('/organizations/default/issues?q=is:unresolved');
    const { state } = checksOf(cookie);
    expect(stateMatches(cookie, state)).toBe(true);
    expect(stateMatches(cookie, `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(stateMatches(mintBinding('/organizations'), state)).toBe(false);
    expect(stateMatches(undefined, state)).toBe(false);
    expect(stateMatches(cookie, undefined)).toBe(false);
    expect(stateMatches(cookie, [state])).toBe(false);
    expect(stateMatches('not-a-binding', checksOf('not-a-binding').state)).toBe(false);
  });
});
