// One topic of the local queue: an append-only log split into segment files named by the
// global byte offset they start at. Appends are group-committed: records arriving while an
// fsync runs wait for the next one, and every append resolves only once its bytes are synced.
// Readers see only synced bytes. Recovery truncates a torn tail, which by construction was
// never acknowledged.
import { mkdir, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeFrame, encodeFrame } from './frame.ts';

export interface LogRecord {
  offset: number;
  next: number;
  key: string;
  value: Buffer;
}

interface Segment {
  base: number;
  size: number;
  path: string;
}

interface PendingAppend {
  frames: Buffer[];
  resolve: () => void;
  reject: (error: Error) => void;
}

const READ_CHUNK = 1 << 20;

export class TopicLog {
  private segments: Segment[] = [];
  private writer: FileHandle | undefined;
  private pending: PendingAppend[] = [];
  private flushing = false;
  private waiters: Array<() => void> = [];
  private closed = false;
  /** Global offset up to which bytes are on disk and synced. */
  durableEnd = 0;

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
  ) {}

  static async open(dir: string, segmentBytes: number): Promise<TopicLog> {
    const log = new TopicLog(dir, segmentBytes);
    await log.recover();
    return log;
  }

  get startOffset(): number {
    return this.segments[0]?.base ?? this.durableEnd;
  }

  append(records: Array<{ key: string; value: Buffer }>): Promise<void> {
    if (this.closed) return Promise.reject(new Error('queue is closed'));
    const frames = records.map((r) => encodeFrame(r.key, r.value));
    return new Promise((resolve, reject) => {
      this.pending.push({ frames, resolve, reject });
      void this.flush();
    });
  }

  /** Whole records from `from` on, at most `maxRecords`, never past the synced end. */
  async read(from: number, maxRecords: number): Promise<LogRecord[]> {
    const records: LogRecord[] = [];
    let offset = Math.max(from, this.startOffset);
    while (records.length < maxRecords && offset < this.durableEnd) {
      const segment = this.segmentAt(offset);
      if (!segment) break;
      const segmentEnd = Math.min(segment.base + segment.size, this.durableEnd);
      if (offset >= segmentEnd) {
        offset = segment.base + segment.size;
        continue;
      }
      const length = Math.min(READ_CHUNK, segmentEnd - offset);
      const buffer = await readAt(segment.path, offset - segment.base, length);
      let at = 0;
      while (records.length < maxRecords && at < buffer.length) {
        const frame = decodeFrame(buffer, at);
        if (frame.kind === 'partial') {
          if (at === 0) {
            // A record larger than the read chunk: read exactly it.
            const whole = await readAt(segment.path, offset - segment.base, 8 + buffer.readUInt32LE(0));
            const big = decodeFrame(whole, 0);
            if (big.kind !== 'record') throw new Error(`queue segment ${segment.path} is damaged at ${offset}`);
            records.push({ offset, next: offset + big.size, key: big.key, value: Buffer.from(big.value) });
            at = big.size;
          }
          break;
        }
        if (frame.kind === 'corrupt') throw new Error(`queue segment ${segment.path} is damaged at ${offset + at}`);
        // Copy: the chunk buffer is large and would otherwise stay alive with every value.
        records.push({ offset: offset + at, next: offset + at + frame.size, key: frame.key, value: Buffer.from(frame.value) });
        at += frame.size;
      }
      if (at === 0) break;
      offset += at;
    }
    return records;
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

  /** Removes whole segments every consumer is done with; the active segment stays. */
  async discardBefore(offset: number): Promise<void> {
    while (this.segments.length > 1) {
      const first = this.segments[0]!;
      if (first.base + first.size > offset) break;
      this.segments.shift();
      await rm(first.path, { force: true });
    }
  }

  /** Counts records between two offsets (used once at start-up to know the backlog). */
  async countRecords(from: number, to = this.durableEnd): Promise<number> {
    let count = 0;
    let offset = from;
    while (offset < to) {
      const batch = await this.read(offset, 10_000);
      if (batch.length === 0) break;
      count += batch.filter((r) => r.offset < to).length;
      offset = batch[batch.length - 1]!.next;
    }
    return count;
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing || this.pending.length > 0) await new Promise((r) => setTimeout(r, 5));
    this.wakeReaders();
    await this.writer?.close();
    this.writer = undefined;
  }

  private segmentAt(offset: number): Segment | undefined {
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const segment = this.segments[i]!;
      if (segment.base <= offset) return segment;
    }
    return undefined;
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        try {
          await this.writeAndSync(batch.flatMap((p) => p.frames));
          for (const append of batch) append.resolve();
        } catch (error) {
          for (const append of batch) append.reject(error as Error);
        }
        this.wakeReaders();
      }
    } finally {
      this.flushing = false;
    }
  }

  private async writeAndSync(frames: Buffer[]): Promise<void> {
    const active = this.segments[this.segments.length - 1]!;
    if (active.size >= this.segmentBytes) await this.rollSegment();
    const segment = this.segments[this.segments.length - 1]!;
    const bytes = frames.reduce((sum, f) => sum + f.length, 0);
    try {
      let written = 0;
      while (written < bytes) {
        const { bytesWritten } = await this.writer!.writev(remaining(frames, written), segment.size + written);
        written += bytesWritten;
      }
      await this.writer!.datasync();
    } catch (error) {
      // Cut anything half-written so the next append starts on a clean frame boundary.
      await this.writer!.truncate(segment.size).catch(() => undefined);
      throw error;
    }
    segment.size += bytes;
    this.durableEnd = segment.base + segment.size;
  }

  private async rollSegment(): Promise<void> {
    await this.writer?.close();
    const segment: Segment = { base: this.durableEnd, size: 0, path: join(this.dir, segmentName(this.durableEnd)) };
    this.writer = await open(segment.path, 'w');
    this.segments.push(segment);
    await syncDirectory(this.dir);
  }

  private async recover(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const names = (await readdir(this.dir)).filter((n) => /^\d{20}\.log$/.test(n)).sort();
    for (const name of names) {
      const path = join(this.dir, name);
      const handle = await open(path, 'r');
      const { size } = await handle.stat();
      await handle.close();
      this.segments.push({ base: Number(name.slice(0, 20)), size, path });
    }
    if (this.segments.length === 0) {
      this.durableEnd = 0;
      await this.rollSegment();
      return;
    }
    const last = this.segments[this.segments.length - 1]!;
    last.size = await validLength(last.path);
    this.writer = await open(last.path, 'r+');
    await this.writer.truncate(last.size);
    await this.writer.datasync();
    this.durableEnd = last.base + last.size;
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

async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Bytes of whole, intact frames from the start of a segment file. */
async function validLength(path: string): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    let offset = 0;
    let carry = Buffer.alloc(0);
    let position = 0;
    while (position < size) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, size - position));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      position += bytesRead;
      const buffer = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      let at = 0;
      for (;;) {
        const frame = decodeFrame(buffer, at);
        if (frame.kind !== 'record') {
          if (frame.kind === 'corrupt') return offset;
          break;
        }
        at += frame.size;
        offset += frame.size;
      }
      carry = Buffer.from(buffer.subarray(at));
      if (bytesRead === 0) break;
    }
    return offset;
  } finally {
    await handle.close();
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the file's own fsync still holds its data.
  } finally {
    await handle.close();
  }
}
