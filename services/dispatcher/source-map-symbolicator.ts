// Symbolication in the dispatcher: for each JS event, the maps its frames need (by Debug ID,
// from the upload index and the BlobStore, gunzipped and parsed once, kept in a cache bounded
// by bytes), then core/sourcemaps/symbolicate.ts rewrites the frames before grouping. A map not
// uploaded yet is remembered as absent for ten seconds; an event that arrives before its map is
// grouped on minified frames and is never regrouped. A kept map is checked against the index
// once a batch (one indexed read), so a map deleted (from the dashboard, the API, the CLI) stops
// symbolicating from the next batch, whichever process deleted it. Maps in use are marked so,
// at most hourly.
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { UnavailableError } from '../core/errors.ts';
import type { NormalizedEvent } from '../core/event/event.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { MetadataStore, SourceMapArtifact } from '../core/ports/metadata-store.ts';
import { debugIdsNeeded } from '../core/sourcemaps/maps-needed.ts';
import { parseSourceMap, symbolicateEvent, type ParsedSourceMap } from '../core/sourcemaps/symbolicate.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { sourceMapCacheBudget } from './source-map-cache-budget.ts';

const gunzipAsync = promisify(gunzip);

/**
 * A parsed map, its mappings decoded, holds about 8 times its JSON size in heap (npm run
 * bench:symbolicate: 5.0 MB of JSON, 38 MB of heap), so the cache counts that estimate.
 */
export const PARSED_HEAP_PER_JSON_BYTE = 8;

// Short: a map uploaded right after the first events it was missing for should apply soon.
const ABSENT_TTL_MS = 10_000;

/**
 * A map's blob that fails this many reads in a row while the store answers its ping is taken
 * for unreadable (an S3 object the credentials may not read, a damaged one), not an outage: the
 * batch goes on with its frames minified instead of being retried for good, which stopped every
 * event behind it (a Kafka partition, or the standalone queue).
 */
const BLOB_FAILURES_BEFORE_UNREADABLE = 3;
/** How long such a map is left alone before it is tried again (an upload of it replaces it). */
const UNREADABLE_BLOB_TTL_MS = 10 * 60_000;

/**
 * Absences remembered at once, apart from the maps' byte budget: uncounted, absences of made-up
 * ids (an event may name 500) filled the heap and were never evicted; counted in that budget, a
 * flood of them evicted the maps in use, which were then read and parsed again. About 150 bytes each.
 */
const MAX_ABSENCES = 10_000;

/**
 * The most maps one event is symbolicated with, each one indexed lookup when not cached. A page
 * loads a few bundles; an event naming 500 made-up ids cost 500 lookups in a row.
 */
const MAX_MAPS_PER_EVENT = 50;
const TOUCH_EVERY_MS = 3_600_000;

interface SymbolicatorDeps {
  metadata: MetadataStore;
  blobs: BlobStore;
  logger: Logger;
  /** Counts loads (errata_sourcemap_loads_total): a map re-read often means the cache is too small. */
  metrics?: Pick<Metrics, 'sourceMapLoads'>;
  /** Heap the parsed maps may hold (estimated from their JSON size). Default: sourceMapCacheBudget(). */
  maxCacheBytes?: number;
  /** Absent or unreadable maps remembered at once (each for ten seconds). Default MAX_ABSENCES. */
  maxAbsences?: number;
  now?: () => number;
}

interface Cached {
  map: ParsedSourceMap;
  bytes: number;
  /** The index entry it was read from (blob and upload time), to see it deleted or replaced. */
  source: string;
}

export class SourceMapSymbolicator {
  private readonly cache = new Map<string, Cached>();
  private cachedBytes = 0;
  /** Maps found absent or unreadable: when to look again, oldest first. */
  private readonly absent = new Map<string, number>();
  /** Reads in a row that failed while the blob store answered, per map (cleared by a read). */
  private readonly blobFailures = new Map<string, number>();
  private readonly touched = new Map<string, number>();
  private readonly used = new Map<number, Set<string>>();
  /** Kept maps found still indexed in this batch (flushUsage ends a batch). */
  private readonly checked = new Set<string>();
  /**
   * Loads under way: batches run side by side (Kafka's partition lanes) share one, so a map two
   * of them miss is read and parsed once, and counted in the cache once.
   */
  private readonly loading = new Map<string, Promise<ParsedSourceMap | null>>();
  private readonly now: () => number;
  private readonly maxCacheBytes: number;

  constructor(private readonly deps: SymbolicatorDeps) {
    this.now = deps.now ?? Date.now;
    // The heap limit is fixed for the process's life, so it is read once, not on every map load.
    this.maxCacheBytes = deps.maxCacheBytes ?? sourceMapCacheBudget();
    // Every result reported from the start (at 0), so a ratio over them is defined before the first failure.
    for (const result of ['kept', 'too_large', 'absent', 'unreadable']) deps.metrics?.sourceMapLoads.inc({ result }, 0);
  }

  /** Rewrites the event's JS frames that have uploaded maps; leaves the others as they are. */
  async symbolicate(projectId: number, event: NormalizedEvent): Promise<void> {
    const needed = debugIdsNeeded(event);
    if (needed.size === 0) return;
    const maps = new Map<string, ParsedSourceMap>();
    for (const debugId of [...new Set(needed.values())].slice(0, MAX_MAPS_PER_EVENT)) {
      const map = await this.load(projectId, debugId);
      if (map) maps.set(debugId, map);
    }
    if (maps.size === 0) return;
    const { usedDebugIds } = symbolicateEvent(event, maps);
    for (const debugId of usedDebugIds) this.markUsed(projectId, debugId);
  }

  /** Writes when maps were last used (once per map and hour); call after a batch. */
  async flushUsage(): Promise<void> {
    const at = new Date(this.now());
    for (const [projectId, debugIds] of this.used) await this.deps.metadata.touchSourceMapArtifacts(projectId, [...debugIds], at);
    this.used.clear();
    this.checked.clear();
    this.forgetOldTouches();
  }

  /** Touches older than their hour say nothing more: the map grew by every debug id ever used. */
  private forgetOldTouches(): void {
    const now = this.now();
    for (const [key, at] of this.touched) if (now - at >= TOUCH_EVERY_MS) this.touched.delete(key);
  }

  private markUsed(projectId: number, debugId: string): void {
    const key = `${projectId}:${debugId}`;
    const last = this.touched.get(key);
    if (last !== undefined && this.now() - last < TOUCH_EVERY_MS) return;
    this.touched.set(key, this.now());
    const set = this.used.get(projectId) ?? new Set<string>();
    set.add(debugId);
    this.used.set(projectId, set);
  }

  private load(projectId: number, debugId: string): Promise<ParsedSourceMap | null> {
    const key = `${projectId}:${debugId}`;
    const under = this.loading.get(key);
    if (under) return under;
    const loaded = this.loadOnce(key, projectId, debugId).finally(() => this.loading.delete(key));
    this.loading.set(key, loaded);
    return loaded;
  }

  private async loadOnce(key: string, projectId: number, debugId: string): Promise<ParsedSourceMap | null> {
    const absentUntil = this.absent.get(key);
    if (absentUntil !== undefined) {
      if (absentUntil > this.now()) return null;
      this.absent.delete(key);
    }
    const cached = this.cache.get(key);
    if (cached) {
      if (this.checked.has(key)) return this.reuse(key, cached);
      const artifact = await this.deps.metadata.findSourceMapArtifact(projectId, debugId, 'source_map');
      this.checked.add(key);
      if (artifact && sourceOf(artifact) === cached.source) return this.reuse(key, cached);
      // Deleted, or replaced by another upload: what was kept must not symbolicate another event.
      this.forget(key, cached);
      return this.read(key, projectId, debugId, artifact);
    }
    const artifact = await this.deps.metadata.findSourceMapArtifact(projectId, debugId, 'source_map');
    this.checked.add(key);
    return this.read(key, projectId, debugId, artifact);
  }

  private reuse(key: string, cached: Cached): ParsedSourceMap {
    // Most recently used last: the first entries are the ones to evict.
    this.cache.delete(key);
    this.cache.set(key, cached);
    return cached.map;
  }

  private async read(
    key: string,
    projectId: number,
    debugId: string,
    artifact: SourceMapArtifact | undefined,
    readAgain = true,
  ): Promise<ParsedSourceMap | null> {
    if (!artifact) return this.rememberAbsent(key, 'absent');
    if (artifact.sizeBytes * PARSED_HEAP_PER_JSON_BYTE > this.maxCacheBytes) {
      // Parsed, it would take more heap than all the maps kept: a 50 MB map (400 MB parsed)
      // ended the process on its heap limit, and the batch, tried again, ended the next one.
      this.deps.logger.warn(
        { projectId, debugId, sizeBytes: artifact.sizeBytes, maxCacheBytes: this.maxCacheBytes },
        "source map too large for this process's map budget (its heap); frames left minified: give the dispatcher more memory",
      );
      return this.rememberAbsent(key, 'too_large');
    }
    const stored = await this.readBlob(key, projectId, debugId, artifact.blobKey);
    if (stored === 'unreadable') return this.rememberAbsent(key, 'unreadable', UNREADABLE_BLOB_TTL_MS);
    if (!stored) {
      // A new upload of the Debug ID replaced the entry, and deleted its file, between reading
      // the one and the other: the new entry's file, rather than ten seconds without the map.
      const now = readAgain ? await this.deps.metadata.findSourceMapArtifact(projectId, debugId, 'source_map') : undefined;
      if (now && now.blobKey !== artifact.blobKey) return this.read(key, projectId, debugId, now, false);
      return this.rememberAbsent(key, 'absent');
    }
    try {
      const json = await gunzipAsync(stored);
      const map = parseSourceMap(json, artifact.url);
      return this.remember(key, { map, bytes: json.byteLength * PARSED_HEAP_PER_JSON_BYTE, source: sourceOf(artifact) });
    } catch (error) {
      // A map that cannot be read symbolicates nothing; the next upload of it replaces it.
      this.deps.logger.warn({ err: error, projectId, debugId }, 'source map unreadable; frames left minified');
      return this.rememberAbsent(key, 'unreadable');
    }
  }

  /**
   * A map the index has that the blob store cannot give now is an outage, not the event's fault:
   * the batch goes back to the queue. As a plain error the event was passed over once the
   * databases answered, though ingest had accepted it. But a blob that fails again and again
   * while the store answers is this map's fault (BLOB_FAILURES_BEFORE_UNREADABLE).
   */
  private async readBlob(
    key: string,
    projectId: number,
    debugId: string,
    blobKey: string,
  ): Promise<Buffer | undefined | 'unreadable'> {
    try {
      const stored = await this.deps.blobs.get(blobKey);
      this.blobFailures.delete(key);
      return stored;
    } catch (error) {
      const storeAnswers = await this.deps.blobs.ping().then(
        () => true,
        () => false,
      );
      const failures = storeAnswers ? (this.blobFailures.get(key) ?? 0) + 1 : 0;
      this.blobFailures.delete(key);
      if (failures >= BLOB_FAILURES_BEFORE_UNREADABLE) {
        this.deps.logger.error(
          { err: error, projectId, debugId, blobKey, failures },
          'source map blob unreadable though the blob store answers; frames left minified for 10 minutes: upload the map again',
        );
        return 'unreadable';
      }
      // Newest last, and bounded as the absences are: made-up ids cannot fill the heap.
      if (failures > 0) this.blobFailures.set(key, failures);
      forgetOldest(this.blobFailures, MAX_ABSENCES);
      throw new UnavailableError('the blob store could not give a source map: the batch is tried again', { cause: error });
    }
  }

  private rememberAbsent(key: string, result: 'absent' | 'unreadable' | 'too_large', ttlMs = ABSENT_TTL_MS): null {
    this.deps.metrics?.sourceMapLoads.inc({ result });
    this.absent.set(key, this.now() + ttlMs);
    forgetOldest(this.absent, this.deps.maxAbsences ?? MAX_ABSENCES);
    return null;
  }

  private remember(key: string, entry: Cached): ParsedSourceMap {
    const max = this.maxCacheBytes;
    this.deps.metrics?.sourceMapLoads.inc({ result: 'kept' });
    const replaced = this.cache.get(key);
    if (replaced) this.forget(key, replaced);
    this.cache.set(key, entry);
    this.cachedBytes += entry.bytes;
    for (const [oldest, cached] of this.cache) {
      if (this.cachedBytes <= max || oldest === key) break;
      this.forget(oldest, cached);
    }
    return entry.map;
  }

  /** Only the entry given: one another load replaced meanwhile stays, and is counted once. */
  private forget(key: string, entry: Cached): void {
    if (this.cache.get(key) !== entry) return;
    this.cache.delete(key);
    this.cachedBytes -= entry.bytes;
  }
}

/** Which stored file an index entry names: the same key uploaded again is another map. */
function sourceOf(artifact: SourceMapArtifact): string {
  return `${artifact.blobKey}@${artifact.uploadedAt.getTime()}`;
}

/** Deletes the oldest entries (first inserted) until `map` holds at most `max`. */
function forgetOldest(map: Map<string, unknown>, max: number): void {
  for (const oldest of map.keys()) {
    if (map.size <= max) break;
    map.delete(oldest);
  }
}
