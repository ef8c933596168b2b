// Slows password guessing: failed sign-ins are counted per account (the email, lower-cased,
// known or not, so the throttle says nothing about who exists) and per client address (an IPv6
// /64 as one, as the listener counts connections; behind a proxy, ERRATA_TRUSTED_PROXIES says
// which X-Forwarded-For entry is the client's, or everyone shares the proxy's address and its
// limit); past the limit within the window, sign-in is refused before any hashing until the
// oldest failure ages out. An attempt still being checked counts as a failure until it settles:
// otherwise a burst of concurrent guesses would all pass the check before the first one failed.
//
// A trusted device (a browser that signed in to the account before, device-cookie.ts, or the
// signed-in session itself on the account page) is held by its own failures alone, with the
// account's limit: a held account or address does not hold it. Otherwise anyone who knew an
// email address kept its owner out, guessing wrong five times every fifteen minutes (OWASP's
// "device cookies" answer to that lockout). Its failures count for the account too, so
// guesses spread over a session and the sign-in form are still counted together.
//
// In memory: one mcp process's view, which is enough to make guessing slow, and a restart
// forgets it, which an attacker cannot trigger.
import { clientOf } from '../../runtime/http-server.ts';

const WINDOW_MS = 15 * 60 * 1000;
/** Failures an account may have in the window: a person mistyping gets several tries. */
const ACCOUNT_LIMIT = 5;
/** An address (an office behind one NAT) may fail more, across accounts. */
const ADDRESS_LIMIT = 20;
/**
 * Keys kept at most, so a flood cannot fill memory. Beyond it one is forgotten: one whose failures
 * all aged out, else the least recently failed that is not held. Forgetting the least recently
 * failed alone let a flood of failures for made-up emails, from enough addresses, wipe a held
 * account's count and guess five more of its passwords each time.
 */
const MAX_KEYS = 10_000;
/** The wait advised when only attempts still in progress fill the limit: they settle in a moment. */
const PENDING_RETRY_MS = 5_000;

interface ThrottleVerdict {
  /** What is throttled, for the message. */
  what: 'account' | 'address' | 'device';
  retryAfterMs: number;
  /** Present when attempts still being checked fill the limit, not failures. */
  pending?: true;
}

/** Who is trying: the email typed, the client's address, and a trusted device's key when there is one. */
interface SignInAttempt {
  email: string;
  ip: string;
  device?: string | undefined;
}

class FailureLog {
  private readonly failures = new Map<string, number[]>();
  /** Attempts begun and not yet settled, per key (bounded by the requests in flight). */
  private readonly pending = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** How long the key must wait, and whether attempts in progress rather than failures fill its limit. */
  held(key: string, now: number): { retryAfterMs: number; pending?: true } | undefined {
    const recent = this.recent(key, now);
    if (recent.length >= this.limit) return { retryAfterMs: recent[recent.length - this.limit]! + WINDOW_MS - now };
    return recent.length + (this.pending.get(key) ?? 0) >= this.limit
      ? { retryAfterMs: PENDING_RETRY_MS, pending: true }
      : undefined;
  }

  begin(key: string): void {
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  settle(key: string): void {
    const left = (this.pending.get(key) ?? 1) - 1;
    if (left > 0) this.pending.set(key, left);
    else this.pending.delete(key);
  }

  fail(key: string, now: number): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.delete(key);
    this.failures.set(key, recent.slice(-this.limit));
    if (this.failures.size > MAX_KEYS) this.forgetOne(now);
  }

  private forgetOne(now: number): void {
    let quiet: string | undefined;
    for (const key of this.failures.keys()) {
      const recent = this.recent(key, now).length;
      if (recent === 0) {
        this.failures.delete(key);
        return;
      }
      if (quiet === undefined && recent < this.limit) quiet = key;
    }
    this.failures.delete(quiet ?? this.failures.keys().next().value!);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => at > now - WINDOW_MS);
  }
}

/** How a begun attempt ended: a wrong password, a right one, or neither (refused as busy, or an error). */
export type AttemptOutcome = 'failed' | 'succeeded' | 'abandoned';

export class SignInThrottle {
  private readonly accounts = new FailureLog(ACCOUNT_LIMIT);
  private readonly addresses = new FailureLog(ADDRESS_LIMIT);
  private readonly devices = new FailureLog(ACCOUNT_LIMIT);

  /**
   * A verdict when this attempt must wait; otherwise undefined, and the attempt counts against
   * its limits until settle() is called for it (exactly once, whatever happens).
   */
  begin(attempt: SignInAttempt, now = Date.now()): ThrottleVerdict | undefined {
    if (attempt.device) {
      const byDevice = this.devices.held(attempt.device, now);
      if (byDevice) return { what: 'device', ...byDevice };
      this.devices.begin(attempt.device);
      return undefined;
    }
    const { account, address } = keys(attempt);
    const byAccount = this.accounts.held(account, now);
    if (byAccount) return { what: 'account', ...byAccount };
    const byAddress = this.addresses.held(address, now);
    if (byAddress) return { what: 'address', ...byAddress };
    this.accounts.begin(account);
    this.addresses.begin(address);
    return undefined;
  }

  /** Ends a begun attempt: a failure is counted; a success clears the account's count (the address keeps its own). */
  settle(attempt: SignInAttempt, outcome: AttemptOutcome, now = Date.now()): void {
    const { account, address } = keys(attempt);
    if (attempt.device) {
      this.devices.settle(attempt.device);
      if (outcome === 'failed') {
        this.devices.fail(attempt.device, now);
        this.accounts.fail(account, now);
      } else if (outcome === 'succeeded') {
        this.devices.clear(attempt.device);
        this.accounts.clear(account);
      }
      return;
    }
    this.accounts.settle(account);
    this.addresses.settle(address);
    if (outcome === 'failed') {
      this.accounts.fail(account, now);
      this.addresses.fail(address, now);
    } else if (outcome === 'succeeded') {
      this.accounts.clear(account);
    }
  }
}

function keys(attempt: SignInAttempt): { account: string; address: string } {
  return { account: attempt.email.trim().toLowerCase(), address: clientOf(attempt.ip) };
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
