import { describe, expect, it } from 'vitest';
import { SignInThrottle, waitText } from './sign-in-throttle.ts';

const MINUTE = 60_000;

describe('SignInThrottle', () => {
  it('holds an account after five failures until the oldest is fifteen minutes old, whatever the case of the email', () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < 5; i++) {
      expect(throttle.check('Ada@example.com', '10.0.0.1', i * MINUTE)).toBeUndefined();
      throttle.failed('Ada@example.com', `10.0.0.${i}`, i * MINUTE);
    }
    expect(throttle.check('ada@EXAMPLE.com', '10.0.0.9', 5 * MINUTE)).toEqual({ what: 'account', retryAfterMs: 10 * MINUTE });
    expect(throttle.check('ada@example.com', '10.0.0.9', 15 * MINUTE + 1)).toBeUndefined();
  });

  it('holds an address after twenty failures across accounts, and a success clears only the account', () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < 20; i++) throttle.failed(`user${i}@example.com`, '10.0.0.1', 0);
    expect(throttle.check('new@example.com', '10.0.0.1', MINUTE)).toEqual({ what: 'address', retryAfterMs: 14 * MINUTE });
    expect(throttle.check('new@example.com', '10.0.0.2', MINUTE)).toBeUndefined();

    for (let i = 0; i < 5; i++) throttle.failed('bob@example.com', '10.0.0.3', 0);
    throttle.succeeded('bob@example.com');
    expect(throttle.check('bob@example.com', '10.0.0.3', 0)).toBeUndefined();
  });
});

describe('waitText', () => {
  it('rounds up to minutes, or seconds under a minute', () => {
    expect(waitText(14 * MINUTE + 1)).toBe('15 minutes');
    expect(waitText(MINUTE)).toBe('1 minute');
    expect(waitText(1500)).toBe('2 seconds');
    expect(waitText(0)).toBe('1 second');
  });
});
