// The per-token limit on /mcp: JSON-RPC messages (tool calls, tools/list, initialize, each
// message of a batch) in a fixed one-minute window per token, which is what whoami can report
// plainly (limit, remaining, reset), and the Agent tokens page shows per token. Held in the
// memory of each mcp process (which also serves the dashboard). Agents are never
// metered or gated; this only stops a runaway loop (or a batch) from starving the others.
// An instance of its own counts /api/v1 requests the same way (agent-auth.ts).

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window resets, ms since the epoch. */
  resetAt: number;
}

interface CallDecision extends RateLimitState {
  allowed: boolean;
  /** Whole seconds until the window resets, at least 1: what a refusal's Retry-After says. */
  retryAfterSeconds: number;
}

export class AgentCallLimiter {
  private readonly windows = new Map<number, { start: number; used: number }>();

  constructor(private readonly perMinute: number) {}

  /** Messages a token may send a minute. */
  get limit(): number {
    return this.perMinute;
  }

  /** Counts `count` messages for the token, all or none: what is refused is not counted. */
  take(tokenId: number, now: number, count = 1): CallDecision {
    const window = this.current(tokenId, now);
    const allowed = window.used + count <= this.perMinute;
    if (allowed) window.used += count;
    const state = this.state(window);
    return { allowed, ...state, retryAfterSeconds: Math.max(1, Math.ceil((state.resetAt - now) / 1000)) };
  }

  peek(tokenId: number, now: number): RateLimitState {
    return this.state(this.current(tokenId, now));
  }

  /**
   * The token's state without starting a window (the dashboard's look must not move when an
   * agent's minute begins): undefined when no message of the token is counted this minute.
   */
  look(tokenId: number, now: number): RateLimitState | undefined {
    const window = this.windows.get(tokenId);
    return window && now - window.start < 60_000 ? this.state(window) : undefined;
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
