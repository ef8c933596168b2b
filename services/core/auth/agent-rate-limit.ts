// The per-token limit on /mcp: JSON-RPC messages (tool calls, tools/list, initialize, each
// message of a batch) in a fixed one-minute window per token, which is what whoami can report
// plainly (limit, remaining, reset). Held in the memory of each mcp process. Agents are never
// metered or gated; this only stops a runaway loop (or a batch) from starving the others.

interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window resets, ms since the epoch. */
  resetAt: number;
}

interface CallDecision extends RateLimitState {
  allowed: boolean;
}

export class AgentCallLimiter {
  private readonly windows = new Map<number, { start: number; used: number }>();

  constructor(private readonly perMinute: number) {}

  /** Counts `count` messages for the token, all or none: what is refused is not counted. */
  take(tokenId: number, now: number, count = 1): CallDecision {
    const window = this.current(tokenId, now);
    const allowed = window.used + count <= this.perMinute;
    if (allowed) window.used += count;
    return { allowed, ...this.state(window) };
  }

  peek(tokenId: number, now: number): RateLimitState {
    return this.state(this.current(tokenId, now));
  }

  private current(tokenId: number, now: number) {
    let window = this.windows.get(tokenId);
    if (!window || now - window.start >= 60_000) {
      window = { start: now, used: 0 };
      this.windows.set(tokenId, window);
      if (this.windows.size > 10_000) this.forgetExpired(now);
    }
    return window;
  }

  private state(window: { start: number; used: number }): RateLimitState {
    return { limit: this.perMinute, remaining: Math.max(0, this.perMinute - window.used), resetAt: window.start + 60_000 };
  }

  private forgetExpired(now: number): void {
    for (const [id, window] of this.windows) if (now - window.start >= 60_000) this.windows.delete(id);
  }
}
