import { describe, expect, it } from 'vitest';
import { AgentCallLimiter } from './agent-rate-limit.ts';

describe('AgentCallLimiter', () => {
  it('takes several messages at once, all or none, and counts only what it allows', () => {
    const limiter = new AgentCallLimiter(6);
    expect(limiter.take(1, 0, 5)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.take(1, 10, 2)).toMatchObject({ allowed: false, remaining: 1, resetAt: 60_000, retryAfterSeconds: 60 });
    expect(limiter.take(1, 20, 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take(1, 30)).toMatchObject({ allowed: false, remaining: 0 });
    // The wait is rounded up to whole seconds, and never 0 however near the reset.
    expect(limiter.take(1, 58_500)).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    expect(limiter.take(1, 59_999)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take(2, 30, 6)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take(1, 60_000, 6)).toMatchObject({ allowed: true, remaining: 0, resetAt: 120_000 });
  });

  it('looks at a token without starting its minute: nothing counted is undefined, and a look changes no window', () => {
    const limiter = new AgentCallLimiter(6);
    expect(limiter.look(1, 0)).toBeUndefined();
    // The look at 0 started nothing: the first message at 10 starts the minute.
    expect(limiter.take(1, 10, 2)).toMatchObject({ remaining: 4, resetAt: 60_010 });
    expect(limiter.look(1, 20)).toEqual({ limit: 6, remaining: 4, resetAt: 60_010 });
    expect(limiter.look(1, 60_010)).toBeUndefined();
    expect(limiter.take(1, 60_020)).toMatchObject({ remaining: 5, resetAt: 120_020 });
  });
});
