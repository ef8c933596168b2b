// How many bytes of upload chunks a project may keep (ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT).
// Chunks wait on disk for an assembly that may never come, until the hourly collection removes
// those older than an hour, so without a bound one upload token could fill the disk. Counted by
// this process, per minute, over the two hours a chunk can live; each chunk counts as at least
// MIN_CHUNK_COST, so that tiny chunks cannot make millions of files either.
import { RateLimitedError } from '../../core/errors.ts';
import { CHUNK_MAX_AGE_MS } from './chunk-gc.ts';

export const MIN_CHUNK_COST = 64 * 1024;
/** Collected once older than CHUNK_MAX_AGE_MS, by a job that runs every CHUNK_MAX_AGE_MS. */
const CHUNK_LIFETIME_MS = 2 * CHUNK_MAX_AGE_MS;
const SLOT_MS = 60_000;

export interface QuotaProject {
  id: number;
  slug: string;
}

export class ChunkQuota {
  /** Per project, bytes charged per minute slot, oldest first. */
  private readonly spent = new Map<number, Array<{ slot: number; bytes: number }>>();

  constructor(
    readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws unless one more chunk, of `bytes` (or of the least cost), fits now. */
  check(project: QuotaProject, bytes = 0): void {
    const used = this.used(project.id);
    if (used + Math.max(bytes, MIN_CHUNK_COST) <= this.maxBytes) return;
    const oldest = this.spent.get(project.id)?.[0]?.slot ?? Math.floor(this.now() / SLOT_MS);
    const freedAt = (oldest + 1) * SLOT_MS + CHUNK_LIFETIME_MS;
    throw new RateLimitedError(
      `the upload chunks of project "${project.slug}" stored in the last two hours take ${used} bytes, and ` +
        `ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT allows ${this.maxBytes}: finish or abandon the uploads in progress ` +
        '(chunks no assembly uses are deleted after an hour) and retry later, or raise the setting',
      Math.max(1, Math.ceil((freedAt - this.now()) / 1000)),
    );
  }

  /** Counts a stored chunk of `bytes`, or throws (counting nothing) when it does not fit. */
  charge(project: QuotaProject, bytes: number): void {
    this.check(project, bytes);
    const slot = Math.floor(this.now() / SLOT_MS);
    const slots = this.spent.get(project.id) ?? [];
    const last = slots.at(-1);
    if (last?.slot === slot) last.bytes += Math.max(bytes, MIN_CHUNK_COST);
    else slots.push({ slot, bytes: Math.max(bytes, MIN_CHUNK_COST) });
    this.spent.set(project.id, slots);
  }

  used(projectId: number): number {
    const slots = this.spent.get(projectId);
    if (!slots) return 0;
    const first = Math.floor((this.now() - CHUNK_LIFETIME_MS) / SLOT_MS);
    while (slots.length > 0 && slots[0]!.slot < first) slots.shift();
    if (slots.length === 0) this.spent.delete(projectId);
    return slots.reduce((sum, entry) => sum + entry.bytes, 0);
  }
}
