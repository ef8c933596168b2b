// The in-memory DSN key cache that lets ingest authenticate without touching a store on the
// hot path. A hit is answered from memory; past half of `ttlMs` it is also refreshed in the
// background, so a key in use is never older than the TTL. An entry past the TTL (a key idle
// that long) waits for the store's answer, so disabling a key takes effect within the TTL; only
// when the store cannot answer is the old entry used, without waiting again for a TTL after a
// failed lookup, so a store outage neither stops nor stalls ingest for known keys. Unknown keys are remembered briefly too, so a flood of made-up keys costs one
// lookup per key and window, in a bounded map.
import type { MetadataStore } from '../core/ports/metadata-store.ts';

export interface KeyInfo {
  projectId: number;
  organizationId: number;
  active: boolean;
  rateLimitPerMinute: number | null;
}

interface Entry {
  info: KeyInfo | undefined;
  loadedAt: number;
  refreshing?: boolean;
  /** When a lookup to refresh it last failed: for a TTL after, it is answered without waiting. */
  failedAt?: number;
}

/** How long a request waits for the store about a key past its TTL before the old answer is used. */
const STALE_WAIT_MS = 2_000;

/** The promise, or a rejection once `ms` have passed without it settling. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

interface KeyCacheOptions {
  ttlMs?: number;
  /** Default STALE_WAIT_MS. */
  staleWaitMs?: number;
  unknownTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<KeyInfo | undefined>>();
  private readonly ttlMs: number;
  private readonly staleWaitMs: number;
  private readonly unknownTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly metadata: Pick<MetadataStore, 'findProjectKey'>,
    options: KeyCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.staleWaitMs = options.staleWaitMs ?? STALE_WAIT_MS;
    this.unknownTtlMs = options.unknownTtlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 50_000;
    this.now = options.now ?? Date.now;
  }

  async lookup(publicKey: string): Promise<KeyInfo | undefined> {
    const entry = this.entries.get(publicKey);
    const age = entry ? this.now() - entry.loadedAt : Infinity;
    if (entry?.info) {
      const failedLately = entry.failedAt !== undefined && this.now() - entry.failedAt < this.ttlMs;
      if (age > this.ttlMs && !failedLately) {
        // Answered stale before, a key disabled while idle took one more request, and every
        // one while the store was down. A store that does not answer within STALE_WAIT_MS
        // (a connection cut without a reset can hang for minutes) counts as failed.
        const info = entry.info;
        return withDeadline(this.load(publicKey), this.staleWaitMs).catch(() => {
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
    if (entry && age <= this.unknownTtlMs) return undefined;
    return this.load(publicKey);
  }

  /** Forget one key (or all), e.g. after the admin interface changed it. */
  invalidate(publicKey?: string): void {
    if (publicKey === undefined) this.entries.clear();
    else this.entries.delete(publicKey);
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
    const info: KeyInfo | undefined = found && {
      projectId: found.project.id,
      organizationId: found.project.organizationId,
      active: found.key.active,
      rateLimitPerMinute: found.project.rateLimitPerMinute,
    };
    this.entries.delete(publicKey);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(publicKey, { info, loadedAt: this.now() });
    return info;
  }
}
