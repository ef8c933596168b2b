// The in-memory DSN key cache that lets ingest authenticate without touching a store on the
// hot path. A hit is answered from memory; past half of `ttlMs` it is also refreshed in the
// background, so a key in use is never older than the TTL. An entry past the TTL (a key idle
// that long) waits for the store's answer, so disabling a key takes effect within the TTL; only
// when the store cannot answer is the old entry used, without waiting again for a TTL after a
// failed lookup, so a store outage neither stops nor stalls ingest for known keys. Unknown keys
// are remembered briefly too, so a flood of made-up keys costs one lookup per key and window,
// in a bounded map of their own: in the known keys' map they pushed real keys out, and with
// them the promise that known keys keep working while the store is down.
import { UnavailableError } from '../core/errors.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import { TimeoutError, withTimeout } from '../core/with-timeout.ts';

export interface KeyInfo {
  projectId: number;
  organizationId: number;
  active: boolean;
  rateLimitPerMinute: number | null;
}

interface Entry {
  info: KeyInfo;
  loadedAt: number;
  refreshing?: boolean;
  /** When a lookup to refresh it last failed: for a TTL after, it is answered without waiting. */
  failedAt?: number;
}

/** How long a request waits for the store about a key past its TTL before the old answer is used. */
const STALE_WAIT_MS = 2_000;

/**
 * How long a request waits for the store about a key it has no answer for before it is answered
 * 503: a store that hangs (a connection cut without a reset) held each such request, and its
 * body, for as long as the driver took to give up.
 */
const FIRST_LOOKUP_WAIT_MS = 5_000;

interface KeyCacheOptions {
  ttlMs?: number;
  /** Default STALE_WAIT_MS. */
  staleWaitMs?: number;
  /** Default FIRST_LOOKUP_WAIT_MS. */
  firstLookupWaitMs?: number;
  unknownTtlMs?: number;
  /** Known keys kept; unknown ones are kept apart, as many again at most. */
  maxEntries?: number;
  now?: () => number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  /** Keys the store did not know, with when it said so. */
  private readonly unknown = new Map<string, number>();
  private readonly loading = new Map<string, Promise<KeyInfo | undefined>>();
  private readonly ttlMs: number;
  private readonly staleWaitMs: number;
  private readonly firstLookupWaitMs: number;
  private readonly unknownTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly metadata: Pick<MetadataStore, 'findProjectKey'>,
    options: KeyCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.staleWaitMs = options.staleWaitMs ?? STALE_WAIT_MS;
    this.firstLookupWaitMs = options.firstLookupWaitMs ?? FIRST_LOOKUP_WAIT_MS;
    this.unknownTtlMs = options.unknownTtlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 50_000;
    this.now = options.now ?? Date.now;
  }

  async lookup(publicKey: string): Promise<KeyInfo | undefined> {
    const entry = this.entries.get(publicKey);
    const age = entry ? this.now() - entry.loadedAt : Infinity;
    if (entry) {
      const failedLately = entry.failedAt !== undefined && this.now() - entry.failedAt < this.ttlMs;
      if (age > this.ttlMs && !failedLately) {
        // Answered stale before, a key disabled while idle took one more request, and every
        // one while the store was down. A store that does not answer within STALE_WAIT_MS
        // (a connection cut without a reset can hang for minutes) counts as failed.
        const info = entry.info;
        return withTimeout(this.load(publicKey), this.staleWaitMs, 'a stale DSN key lookup').catch(() => {
          entry.failedAt = this.now();
          return info;
        });
      }
      if (age > this.ttlMs / 2 && !entry.refreshing) {
        entry.refreshing = true;
        this.load(publicKey).catch(() => {
          entry.refreshing = false;
          entry.failedAt = this.now();
        });
      }
      return entry.info;
    }
    const unknownAt = this.unknown.get(publicKey);
    if (unknownAt !== undefined && this.now() - unknownAt <= this.unknownTtlMs) return undefined;
    return withTimeout(this.load(publicKey), this.firstLookupWaitMs, 'a DSN key lookup').catch((error: unknown) => {
      if (error instanceof TimeoutError) {
        throw new UnavailableError('the metadata store did not answer about this DSN key in time: retry later', {
          cause: error,
        });
      }
      throw error;
    });
  }

  /** Forget one key (or all), e.g. after the admin interface changed it. */
  invalidate(publicKey?: string): void {
    if (publicKey === undefined) {
      this.entries.clear();
      this.unknown.clear();
    } else {
      this.entries.delete(publicKey);
      this.unknown.delete(publicKey);
    }
  }

  /** One lookup per key at a time: a burst of requests with a new key waits on the same one. */
  private load(publicKey: string): Promise<KeyInfo | undefined> {
    let loading = this.loading.get(publicKey);
    if (!loading) {
      loading = this.fetch(publicKey).finally(() => this.loading.delete(publicKey));
      this.loading.set(publicKey, loading);
    }
    return loading;
  }

  private async fetch(publicKey: string): Promise<KeyInfo | undefined> {
    const found = await this.metadata.findProjectKey(publicKey);
    if (!found) {
      // A key deleted from the store is forgotten as known, and remembered as unknown.
      this.entries.delete(publicKey);
      remember(this.unknown, publicKey, this.now(), this.maxEntries);
      return undefined;
    }
    const info: KeyInfo = {
      projectId: found.project.id,
      organizationId: found.project.organizationId,
      active: found.key.active,
      rateLimitPerMinute: found.project.rateLimitPerMinute,
    };
    this.unknown.delete(publicKey);
    remember(this.entries, publicKey, { info, loadedAt: this.now() }, this.maxEntries);
    return info;
  }
}

/** Sets `key` as the newest entry of `map`, first dropping its oldest when it holds `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}
