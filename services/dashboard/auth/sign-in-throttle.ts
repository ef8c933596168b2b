// Slows password guessing: failed sign-ins are counted per account (the email, lower-cased,
// known or not, so the throttle says nothing about who exists) and per client address; past the
// limit within the window, sign-in is refused before any hashing until the oldest failure ages
// out. In memory: one mcp process's view, which is enough to make guessing slow, and a restart
// forgets it, which an attacker cannot trigger.
const WINDOW_MS = 15 * 60 * 1000;
/** Failures an account may have in the window: a person mistyping gets several tries. */
const ACCOUNT_LIMIT = 5;
/** An address (an office behind one NAT) may fail more, across accounts. */
const ADDRESS_LIMIT = 20;
/** Keys kept at most; beyond it the quietest are forgotten, so a flood cannot fill memory. */
const MAX_KEYS = 10_000;

interface ThrottleVerdict {
  /** What is throttled, for the message. */
  what: 'account' | 'address';
  retryAfterMs: number;
}

class FailureLog {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly limit: number) {}

  retryAfter(key: string, now: number): number {
    const recent = this.recent(key, now);
    return recent.length >= this.limit ? recent[recent.length - this.limit]! + WINDOW_MS - now : 0;
  }

  fail(key: string, now: number): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.delete(key);
    this.failures.set(key, recent.slice(-this.limit));
    if (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value!);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => at > now - WINDOW_MS);
  }
}

export class SignInThrottle {
  private readonly accounts = new FailureLog(ACCOUNT_LIMIT);
  private readonly addresses = new FailureLog(ADDRESS_LIMIT);

  /** Undefined when this attempt may go ahead. */
  check(email: string, address: string, now = Date.now()): ThrottleVerdict | undefined {
    const account = this.accounts.retryAfter(email.trim().toLowerCase(), now);
    if (account > 0) return { what: 'account', retryAfterMs: account };
    const byAddress = this.addresses.retryAfter(address, now);
    if (byAddress > 0) return { what: 'address', retryAfterMs: byAddress };
    return undefined;
  }

  failed(email: string, address: string, now = Date.now()): void {
    this.accounts.fail(email.trim().toLowerCase(), now);
    this.addresses.fail(address, now);
  }

  /** A right password clears the account's count (the address keeps its own). */
  succeeded(email: string): void {
    this.accounts.clear(email.trim().toLowerCase());
  }
}

/** "3 minutes", "1 minute", "40 seconds": how long to wait, rounded up. */
export function waitText(ms: number): string {
  if (ms >= 60_000) {
    const minutes = Math.ceil(ms / 60_000);
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
