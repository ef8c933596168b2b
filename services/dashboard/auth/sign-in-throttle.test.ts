import { describe, expect, it } from 'vitest';
import { SignInThrottle, waitText, type AttemptOutcome } from './sign-in-throttle.ts';

const MINUTE = 60_000;

/** One whole attempt that ends as `outcome`; answers the verdict when it was not let through. */
function attempt(
  throttle: SignInThrottle,
  email: string,
  address: string,
  now: number,
  outcome: AttemptOutcome = 'failed',
  device?: string,
) {
  const verdict = throttle.begin({ email, ip: address, device }, now);
  if (!verdict) throttle.settle({ email, ip: address, device }, outcome, now);
  return verdict;
}

describe('SignInThrottle', () => {
  it('holds an account after five failures until the oldest is fifteen minutes old, whatever the case of the email', () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < 5; i++) expect(attempt(throttle, 'Ada@example.com', `10.0.0.${i}`, i * MINUTE)).toBeUndefined();
    expect(attempt(throttle, 'ada@EXAMPLE.com', '10.0.0.9', 5 * MINUTE)).toEqual({ what: 'account', retryAfterMs: 10 * MINUTE });
    expect(attempt(throttle, 'ada@example.com', '10.0.0.9', 15 * MINUTE + 1, 'abandoned')).toBeUndefined();
  });

  it('holds an address after twenty failures across accounts, and a success clears only the account', () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < 20; i++) attempt(throttle, `user${i}@example.com`, '10.0.0.1', 0);
    expect(attempt(throttle, 'new@example.com', '10.0.0.1', MINUTE)).toEqual({ what: 'address', retryAfterMs: 14 * MINUTE });
    expect(attempt(throttle, 'new@example.com', '10.0.0.2', MINUTE, 'abandoned')).toBeUndefined();

    for (let i = 0; i < 4; i++) attempt(throttle, 'bob@example.com', '10.0.0.3', 0);
    attempt(throttle, 'bob@example.com', '10.0.0.3', 0, 'succeeded');
    for (let i = 0; i < 5; i++) expect(attempt(throttle, 'bob@example.com', '10.0.0.4', 0)).toBeUndefined();
  });

  it('counts an IPv6 /64 as one address, as the listener does', () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < 20; i++) attempt(throttle, `user${i}@example.com`, `2001:db8:1:2::${i.toString(16)}`, 0);
    expect(attempt(throttle, 'new@example.com', '2001:db8:1:2:ffff::1', MINUTE)).toEqual({
      what: 'address',
      retryAfterMs: 14 * MINUTE,
    });
    expect(attempt(throttle, 'new@example.com', '2001:db8:1:3::1', MINUTE, 'abandoned')).toBeUndefined();
  });

  it('counts attempts still being checked, so a burst cannot pass the limit before the first one fails', () => {
    const throttle = new SignInThrottle();
    attempt(throttle, 'eve@example.com', '10.0.0.1', 0);
    const begun = [1, 2, 3, 4].map((i) => throttle.begin({ email: 'eve@example.com', ip: `10.0.1.${i}` }, 0));
    expect(begun).toEqual([undefined, undefined, undefined, undefined]);
    // Five are counted (one failed, four in progress): the sixth waits a moment, not fifteen minutes.
    expect(throttle.begin({ email: 'EVE@example.com', ip: '10.0.2.1' }, 0)).toEqual({
      what: 'account',
      retryAfterMs: 5_000,
      pending: true,
    });
    // An attempt refused as busy, not checked, frees its place without counting as a failure.
    throttle.settle({ email: 'eve@example.com', ip: '10.0.1.1' }, 'abandoned', 0);
    expect(attempt(throttle, 'eve@example.com', '10.0.2.1', 0)).toBeUndefined();
    for (const i of [2, 3, 4]) throttle.settle({ email: 'eve@example.com', ip: `10.0.1.${i}` }, 'failed', 0);
    expect(throttle.begin({ email: 'eve@example.com', ip: '10.0.2.2' }, MINUTE)).toEqual({
      what: 'account',
      retryAfterMs: 14 * MINUTE,
    });
  });

  it("counts a trusted device on its own: others' failures do not hold it, its own do", () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < 5; i++) attempt(throttle, 'ada@example.com', `10.0.0.${i}`, 0);
    for (let i = 0; i < 20; i++) attempt(throttle, `user${i}@example.com`, '10.0.1.1', 0);
    // The account and the address are held for everyone else; the device that signed in before is not.
    expect(attempt(throttle, 'ada@example.com', '10.0.0.9', MINUTE)).toEqual({ what: 'account', retryAfterMs: 14 * MINUTE });
    expect(attempt(throttle, 'ada@example.com', '10.0.1.1', MINUTE, 'failed', '7.nonce')).toBeUndefined();
    // Its success clears the account's count, as any success did.
    expect(attempt(throttle, 'ada@example.com', '10.0.1.1', MINUTE, 'succeeded', '7.nonce')).toBeUndefined();
    expect(attempt(throttle, 'ada@example.com', '10.0.0.9', MINUTE, 'abandoned')).toBeUndefined();
    // A device has five tries of its own, like an account.
    for (let i = 0; i < 5; i++)
      expect(attempt(throttle, 'ada@example.com', '10.0.2.1', MINUTE, 'failed', '7.other')).toBeUndefined();
    expect(attempt(throttle, 'ada@example.com', '10.0.2.1', 2 * MINUTE, 'failed', '7.other')).toEqual({
      what: 'device',
      retryAfterMs: 14 * MINUTE,
    });
    expect(attempt(throttle, 'ada@example.com', '10.0.2.1', 2 * MINUTE, 'abandoned', '7.nonce')).toBeUndefined();

    // Its failures count for the account as well: guesses spread over devices and the form add up.
    const fresh = new SignInThrottle();
    for (let i = 0; i < 5; i++) attempt(fresh, 'bob@example.com', '10.0.3.1', 0, 'failed', '8.nonce');
    expect(attempt(fresh, 'bob@example.com', '10.0.3.2', MINUTE)).toEqual({ what: 'account', retryAfterMs: 14 * MINUTE });
  });
});

describe('waitText', () => {
  it('keeps a held account held through a flood of failures for other accounts, from many addresses', () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < 5; i++) attempt(throttle, 'ada@example.com', '10.0.0.1', 0);
    // 12,000 made-up emails, 20 from each of 600 IPv6 /64s: more keys than the log keeps.
    for (let i = 0; i < 12_000; i++) {
      attempt(throttle, `nobody${i}@example.com`, `2001:db8:${Math.floor(i / 20).toString(16)}::1`, MINUTE);
    }
    expect(attempt(throttle, 'ada@example.com', '10.0.0.2', 2 * MINUTE)).toEqual({ what: 'account', retryAfterMs: 13 * MINUTE });
  });

  it('rounds up to minutes, or seconds under a minute', () => {
    expect(waitText(14 * MINUTE + 1)).toBe('15 minutes');
    expect(waitText(MINUTE)).toBe('1 minute');
    expect(waitText(1500)).toBe('2 seconds');
    expect(waitText(0)).toBe('1 second');
  });
});
