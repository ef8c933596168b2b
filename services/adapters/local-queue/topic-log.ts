// One topic of the local queue: an append-only log split into segment files named by the
// global byte offset they start at. Appends are group-committed: records arriving while an
// fsync runs wait for the next one, which may also wait out minFlushIntervalMs to take in more;
// every append resolves only once its bytes are synced.
// Readers see only synced bytes. Recovery truncates a torn tail, which by construction was
// never acknowledged. Damaged bytes followed by whole records (a bad sector, not a crash) are
// stepped over, by recovery and readers alike: the records after them were acknowledged.
//
// A log is opened either for writing (appends, recovery) or read-only, so that one thread can
// append while another consumes: the reader learns of new synced bytes through
// advanceDurableEnd() and finds new segment files on disk as it reaches them.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectoryDurably, syncDirectory } from '../disk-sync.ts';
import { decodeFrame, encodeFrame, FRAME_HEADER, MIN_FRAME, peekFrame, peekSequence } from './frame.ts';

/** Bytes that are not a whole record where one should start: disk damage, not a crash. */
export class DamagedSegmentError extends Error {
  constructor(
    readonly path: string,
    readonly offset: number,
    /** Where reading goes on: the next whole record in the segment, or where the segment ends. */
    readonly resumeAt: number,
  ) {
    super(
      `queue segment ${path} is damaged at offset ${offset}: reading goes on at offset ${resumeAt}, and what ` +
        `records the ${resumeAt - offset} bytes between held are lost`,
    );
  }
}

interface LogRecord {
  offset: number;
  next: number;
  key: string;
  value: Buffer;
}

interface Segment {
  base: number;
  path: string;
}

interface PendingAppend {
  /** The records' frames, each as its header and its value. */
  frames: Buffer[];
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Where a log's synced bytes end, and the number of the last record in them. */
export interface DurableEnd {
  end: number;
  lastSequence: number;
}

interface TopicLogOptions {
  segmentBytes: number;
  /**
   * A segment this old (from its start) is finished at the next append, as a full one is, so
   * that it can be deleted once consumed: on a quiet server the one segment held every payload
   * of weeks, deleted issues' and expired ones' too, until it reached segmentBytes.
   */
  segmentMaxAgeMs?: number;
  readOnly?: boolean;
  /**
   * For a reader: where the writer's synced bytes ended when the reader was started, to read up to
   * rather than the files' length. The files may also hold whole records the writer has written
   * and not yet synced (the reader opened while an append was under way): delivered and
   * committed, a failed sync or a write cut back could put new records where the reader believes
   * it has already read. The writer's announcements (advanceDurableEnd) take it further.
   */
  knownDurable?: DurableEnd;
  /** Called after every sync with the new durable end and the sequence of its last record. */
  onDurable?: (end: number, lastSequence: number) => void;
  /** Told of each damaged stretch recovery found with whole records after it, and kept them. */
  onDamage?: (error: Error) => void;
  /**
   * A flush starts about this long after the previous one started (a timer may fire up to a
   * millisecond early; 0: as soon as the last one ends). Under a steady load each fsync then
   * carries the appends of the whole interval instead of about one; an append after a quiet
   * spell is flushed at once.
   */
  minFlushIntervalMs?: number;
}

const READ_CHUNK = 1 << 20;

export class TopicLog {
  private segments: Segment[] = [];
  private writer: FileHandle | undefined;
  /** Bytes in the active (last) segment; known to the writer only. */
  private activeSize = 0;
  /** When the active segment was started (or found, at recovery), Date.now(). */
  private activeSince = 0;
  private pending: PendingAppend[] = [];
  /**
   * The flush under way, if any: appends made meanwhile join its next round (or this one, while
   * it waits out minFlushIntervalMs).
   */
  private flushing: Promise<void> | undefined;
  /** When the last flush started (performance.now()), for minFlushIntervalMs. */
  private lastFlushStarted = -Infinity;
  private waiters: Array<() => void> = [];
  private closed = false;
  /**
   * Set once a sync of the log's files failed, and kept: after a failed fsync Linux may mark the
   * unwritten pages clean and report the next one successful, so a retried append could be
   * confirmed with its bytes (or its segment's directory entry) never on disk. As Postgres does
   * (a PANIC), the log refuses appends from then on; a restart recovers what the disk holds.
   */
  syncFailure: Error | undefined;
  /** Global offset up to which bytes are on disk and synced. */
  durableEnd = 0;
  /** Sequence of the last synced record (-1 before the first). */
  lastSequence = -1;
  private nextSequence = 0;

  private constructor(
    private readonly dir: string,
    private readonly options: TopicLogOptions,
  ) {}

  static async open(dir: string, options: TopicLogOptions): Promise<TopicLog> {
    const log = new TopicLog(dir, options);
    try {
      await makeDirectoryDurably(dir); // a new segment's entry is synced into it; its own into its parent
      if (options.readOnly) await log.openForReading();
      else await log.recover();
    } catch (error) {
      await log.close().catch(() => {}); // the segment a failed recovery opened
      throw error;
    }
    return log;
  }

  /** The oldest offset still on disk (as far as this side knows). */
  get startOffset(): number {
    return this.segments[0]?.base ?? 0;
  }

  append(records: Array<{ key: string; value: Buffer }>): Promise<void> {
    if (this.options.readOnly) return Promise.reject(new Error('this queue log is open read-only'));
    if (this.closed) return Promise.reject(new Error('queue is closed'));
    if (this.syncFailure) return Promise.reject(this.syncFailure);
    const frames = records.flatMap((r) => encodeFrame(this.nextSequence++, r.key, r.value));
    return new Promise((resolve, reject) => {
      this.pending.push({ frames, resolve, reject });
      void this.flush();
    });
  }

  /** A writer elsewhere synced bytes up to `end`, its last record numbered `lastSequence`. */
  advanceDurableEnd(end: number, lastSequence: number): void {
    if (end <= this.durableEnd) return;
    this.durableEnd = end;
    this.lastSequence = lastSequence;
    this.wakeReaders();
  }

  /** Records from `offset` to the synced end: one header read, however long the backlog. */
  async recordsFrom(offset: number): Promise<number> {
    if (offset >= this.durableEnd) return 0;
    const segment = await this.segmentFor(offset);
    if (!segment) return 0;
    const first = peekSequence(readAt(segment.path, offset - segment.base, FRAME_HEADER + 8));
    return first === undefined ? 0 : Math.max(0, this.lastSequence - first + 1);
  }

  /**
   * Whole records from `from` on: at most `maxRecords`, stopping after `maxBytes` of values
   * (at least one record), never past the synced end.
   */
  async read(from: number, maxRecords: number, maxBytes = Infinity): Promise<LogRecord[]> {
    const records: LogRecord[] = [];
    let bytes = 0;
    let offset = Math.max(from, this.startOffset);
    while (records.length < maxRecords && bytes < maxBytes && offset < this.durableEnd) {
      const segment = await this.segmentFor(offset);
      if (!segment) break;
      // A segment ends where the next begins: bytes past that (a failed write) are not records.
      const end = Math.min(this.durableEnd, this.segments.find((s) => s.base > segment.base)?.base ?? Infinity);
      const buffer = readAt(segment.path, offset - segment.base, Math.min(READ_CHUNK, end - offset));
      if (buffer.length === 0) {
        // The end of this segment: the writer has started the next one here.
        if (await this.movedOn(offset, segment)) continue;
        break;
      }
      let at = 0;
      let damaged = false;
      while (records.length < maxRecords && bytes < maxBytes && at < buffer.length) {
        let frame = decodeFrame(buffer, at);
        let size = frame.kind === 'record' ? frame.size : 0;
        if (frame.kind === 'partial' && at === 0 && buffer.length >= FRAME_HEADER) {
          // A record larger than the read chunk: read exactly it. One that would end past the
          // synced bytes is damage (they end on a record's end): a damaged length field asked
          // for a buffer of up to 4 GB.
          const claimed = FRAME_HEADER + buffer.readUInt32LE(0);
          frame =
            claimed <= end - offset ? decodeFrame(readAt(segment.path, offset - segment.base, claimed), 0) : { kind: 'corrupt' };
          size = frame.kind === 'record' ? frame.size : 0;
        }
        if (frame.kind === 'partial') break;
        if (frame.kind === 'corrupt') {
          damaged = true;
          break;
        }
        // Copy: the chunk buffer is large and would otherwise stay alive with every value.
        records.push({ offset: offset + at, next: offset + at + size, key: frame.key, value: Buffer.from(frame.value) });
        bytes += frame.value.length;
        at += size;
      }
      if (damaged) {
        // The whole records before the damage go out first; the next read starts at it.
        if (records.length > 0) break;
        // Bytes a failed write left past this segment's last record, where the writer started
        // the next segment (not listed on this side yet), are no damage.
        if (await this.movedOn(offset, segment)) continue;
        // Past the damage, at the next whole record (its number one this side has seen synced),
        // else where the segment's synced bytes end: the newest segment's damage was retried for good.
        const segmentEnd = Math.min(this.durableEnd, this.segments.find((s) => s.base > segment.base)?.base ?? Infinity);
        const next = nextIntactFrame(segment.path, offset - segment.base + 1, segmentEnd - segment.base, 0, this.lastSequence);
        throw new DamagedSegmentError(segment.path, offset, next === undefined ? segmentEnd : segment.base + next);
      }
      if (at === 0) {
        // Not even one whole record: the same leftover bytes, not long enough to look damaged.
        if (records.length === 0 && (await this.movedOn(offset, segment))) continue;
        break;
      }
      offset += at;
    }
    return records;
  }

  /** Whether, the directory listed again, `offset` is in a later segment than `segment`. */
  private async movedOn(offset: number, segment: Segment): Promise<boolean> {
    await this.refreshSegments();
    return this.segmentAt(offset)?.base !== segment.base;
  }

  /** Resolves once bytes past `offset` are readable, or the log closes. */
  waitForData(offset: number): Promise<void> {
    if (this.durableEnd > offset || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes every reader waiting for data (used to stop consumers). */
  wakeReaders(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Removes whole segments every consumer is done with; the newest segment always stays. It goes
   * by the list this side keeps, without reading the directory at every commit: the writer adds
   * each segment it starts, and a reader lists the directory again when it reaches a segment's
   * end (so a segment finished exactly where a commit lands waits for the next commit).
   */
  async discardBefore(offset: number): Promise<void> {
    while (this.segments.length > 1 && this.segments[1]!.base <= offset) {
      const first = this.segments[0]!;
      await rm(first.path, { force: true });
      // Only once deleted, so a failed deletion is tried again at the next commit; and by name,
      // since a read may have listed the directory again meanwhile.
      this.segments = this.segments.filter((s) => s.path !== first.path);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    this.wakeReaders();
    await this.writer?.close();
    this.writer = undefined;
  }

  private async segmentFor(offset: number): Promise<Segment | undefined> {
    let found = this.segmentAt(offset);
    if (!found) {
      await this.refreshSegments();
      found = this.segmentAt(offset);
    }
    return found;
  }

  private segmentAt(offset: number): Segment | undefined {
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const segment = this.segments[i]!;
      if (segment.base <= offset) return segment;
    }
    return undefined;
  }

  private async refreshSegments(): Promise<void> {
    const names = (await readdir(this.dir)).filter((n) => /^\d{20}\.log$/.test(n)).sort();
    this.segments = names.map((name) => ({ base: Number(name.slice(0, 20)), path: join(this.dir, name) }));
  }

  private flush(): Promise<void> {
    this.flushing ??= this.flushPending().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async flushPending(): Promise<void> {
    while (this.pending.length > 0) {
      const wait = this.lastFlushStarted + (this.options.minFlushIntervalMs ?? 0) - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
      this.lastFlushStarted = performance.now();
      const batch = this.pending;
      this.pending = [];
      try {
        await this.writeAndSync(batch.flatMap((p) => p.frames));
        for (const append of batch) append.resolve();
        this.options.onDurable?.(this.durableEnd, this.lastSequence);
      } catch (error) {
        for (const append of batch) append.reject(error as Error);
      }
      this.wakeReaders();
    }
  }

  private async writeAndSync(frames: Buffer[]): Promise<void> {
    if (this.syncFailure) throw this.syncFailure; // appended before the sync failed
    const lastSequence = this.nextSequence - 1;
    const old = this.activeSize > 0 && Date.now() - this.activeSince >= (this.options.segmentMaxAgeMs ?? Infinity);
    if (this.activeSize >= this.options.segmentBytes || old) await this.rollSegment();
    const bytes = frames.reduce((sum, f) => sum + f.length, 0);
    try {
      let written = 0;
      while (written < bytes) {
        const { bytesWritten } = await this.writer!.writev(remaining(frames, written), this.activeSize + written);
        written += bytesWritten;
      }
      await this.syncing(() => this.writer!.datasync());
    } catch (error) {
      // Cut anything half-written so the next append starts on a clean frame boundary.
      await this.writer!.truncate(this.activeSize).catch(() => undefined);
      throw error;
    }
    this.activeSize += bytes;
    this.durableEnd += bytes;
    this.lastSequence = lastSequence;
  }

  private async rollSegment(): Promise<void> {
    // Leave the finished segment exactly as long as its records (a failed write may have left more).
    await this.writer?.truncate(this.activeSize).catch(() => undefined);
    await this.writer?.close();
    const segment: Segment = { base: this.durableEnd, path: join(this.dir, segmentName(this.durableEnd)) };
    this.writer = await open(segment.path, 'w');
    this.segments.push(segment);
    this.activeSize = 0;
    this.activeSince = Date.now();
    await this.syncing(() => syncDirectory(this.dir));
  }

  private async syncing(sync: () => Promise<void>): Promise<void> {
    try {
      await sync();
    } catch (error) {
      this.syncFailure ??= new Error(`could not sync the queue's files in ${this.dir} to disk: ${String(error)}`, {
        cause: error,
      });
      throw this.syncFailure;
    }
  }

  private async openForReading(): Promise<void> {
    await this.refreshSegments();
    const last = this.segments[this.segments.length - 1];
    const newest = last ? scanSegment(last.path) : undefined;
    const onDisk = last && newest ? last.base + newest.bytes : 0;
    const known = this.options.knownDurable;
    if (known && known.end <= onDisk) {
      this.durableEnd = known.end;
      this.lastSequence = known.lastSequence;
      return;
    }
    this.durableEnd = onDisk;
    this.lastSequence = this.lastSequenceOnDisk(newest);
  }

  /**
   * The number of the newest whole record: in the newest segment that has one. The newest
   * segment's scan, already made by the caller, is not read again (up to 64 MiB at start-up).
   */
  private lastSequenceOnDisk(newest: SegmentScan | undefined): number {
    if (newest && newest.lastSequence >= 0) return newest.lastSequence;
    for (let i = this.segments.length - 2; i >= 0; i--) {
      const { lastSequence } = scanSegment(this.segments[i]!.path);
      if (lastSequence >= 0) return lastSequence;
    }
    return -1;
  }

  private async recover(): Promise<void> {
    await this.refreshSegments();
    const last = this.segments[this.segments.length - 1];
    if (!last) {
      this.durableEnd = 0;
      await this.rollSegment();
      return;
    }
    const scan = scanSegment(last.path);
    for (const stretch of scan.damaged) {
      this.options.onDamage?.(
        new Error(
          `queue segment ${last.path} is damaged at offset ${last.base + stretch.at}: ${stretch.length} bytes are not ` +
            'whole records, and whole ones follow them; those are kept, and readers step over the damage',
        ),
      );
    }
    this.activeSize = scan.bytes;
    this.activeSince = Date.now();
    this.lastSequence = this.lastSequenceOnDisk(scan);
    this.nextSequence = this.lastSequence + 1;
    this.writer = await open(last.path, 'r+');
    await this.writer.truncate(this.activeSize);
    await this.writer.datasync();
    this.durableEnd = last.base + this.activeSize;
  }
}

function segmentName(base: number): string {
  return `${String(base).padStart(20, '0')}.log`;
}

function remaining(frames: Buffer[], skip: number): Buffer[] {
  const out: Buffer[] = [];
  let left = skip;
  for (const frame of frames) {
    if (left >= frame.length) {
      left -= frame.length;
      continue;
    }
    out.push(left > 0 ? frame.subarray(left) : frame);
    left = 0;
  }
  return out;
}

/**
 * Up to `length` bytes of a segment from `position`, blocking the thread for the read (nothing if
 * the segment is gone: a consumer that committed past it deleted it). Consumers read this way
 * between two batches, on the dispatcher's thread, where an open, a read and a close per
 * megabyte, each a hop through libuv's pool, would wait for an event loop that a running batch
 * keeps busy. Records just written come from the page cache (5 MB in a median 1.4 ms here, 4.6 at
 * the 90th percentile); a backlog older than the cache, up to 12 MB a batch, from the disk. The
 * writer's thread reads a record header (16 bytes) this way for each lag figure.
 */
function readAt(path: string, position: number, length: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw error;
  }
  try {
    const buffer = Buffer.allocUnsafe(length);
    return buffer.subarray(0, readSync(fd, buffer, 0, length, position));
  } finally {
    closeSync(fd);
  }
}

interface SegmentScan {
  /** Where the last whole, intact record ends: a crash's torn record, after it, is cut. */
  bytes: number;
  /** The last whole record's number, -1 if none. */
  lastSequence: number;
  /** Stretches of bytes that are not whole records, each followed by whole ones. */
  damaged: Array<{ at: number; length: number }>;
}

/**
 * A segment file read from the start, stepping over damaged bytes to the whole records after
 * them: a crash leaves its torn record last, with nothing whole after it, while a bad sector
 * leaves acknowledged records after the damage, which recovery used to cut away with it.
 */
function scanSegment(path: string): SegmentScan {
  const size = fileSize(path);
  const frames = new FrameReader(path, size);
  const damaged: SegmentScan['damaged'] = [];
  let offset = 0;
  let lastSequence = -1;
  while (offset < size) {
    const frame = frames.at(offset);
    if (frame) {
      offset += frame.size;
      lastSequence = frame.sequence;
      continue;
    }
    // The records after the damage are numbered on from the last one before it, one per
    // MIN_FRAME bytes at most: a range that damaged bytes rarely match by chance.
    const min = lastSequence + 1;
    const max = lastSequence < 0 ? Number.MAX_SAFE_INTEGER : min + Math.floor((size - offset) / MIN_FRAME);
    const next = nextIntactFrame(path, offset + 1, size, min, max);
    if (next === undefined) break;
    damaged.push({ at: offset, length: next - offset });
    offset = next;
  }
  return { bytes: offset, lastSequence, damaged };
}

/** Frames of one file read a chunk at a time, or whole when one is longer than a chunk. */
class FrameReader {
  private chunk: Buffer = Buffer.alloc(0);
  private chunkStart = 0;

  constructor(
    private readonly path: string,
    private readonly size: number,
  ) {}

  /** The whole, intact frame at `offset`, if there is one there. */
  at(offset: number): { size: number; sequence: number } | undefined {
    if (!this.holds(offset, FRAME_HEADER + 8)) this.load(offset, READ_CHUNK);
    const claim = peekFrame(this.chunk, offset - this.chunkStart);
    if (!claim || offset + claim.size > this.size) return undefined;
    if (!this.holds(offset, claim.size)) this.load(offset, Math.max(claim.size, READ_CHUNK));
    const frame = decodeFrame(this.chunk, offset - this.chunkStart);
    return frame.kind === 'record' ? frame : undefined;
  }

  private holds(offset: number, length: number): boolean {
    return offset >= this.chunkStart && offset + length <= this.chunkStart + this.chunk.length;
  }

  private load(offset: number, length: number): void {
    this.chunk = readAt(this.path, offset, Math.min(length, this.size - offset));
    this.chunkStart = offset;
  }
}

/**
 * Where the first whole, intact frame at or after `from` (and ending by `end`) starts in a segment
 * file, numbered from `minSequence` to `maxSequence`. Tried at every byte, since a damaged stretch
 * gives no clue where it ends; a candidate must claim a number in range and then match its
 * checksum, so bytes taken for a frame by chance are unlikely. Only damage pays for this.
 */
function nextIntactFrame(path: string, from: number, end: number, minSequence: number, maxSequence: number): number | undefined {
  for (let start = from; start < end; start += READ_CHUNK) {
    // Each window reads a claim's worth of bytes past its last candidate.
    const window = readAt(path, start, Math.min(READ_CHUNK + FRAME_HEADER + 8, end - start));
    const candidates = Math.min(READ_CHUNK, window.length);
    for (let at = 0; at < candidates; at++) {
      const claim = peekFrame(window, at);
      if (!claim || claim.sequence < minSequence || claim.sequence > maxSequence || start + at + claim.size > end) continue;
      if (decodeFrame(readAt(path, start + at, claim.size), 0).kind === 'record') return start + at;
    }
  }
  return undefined;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}
