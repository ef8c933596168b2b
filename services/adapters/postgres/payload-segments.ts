// The standalone server's event payloads, kept in files beside the embedded database rather than
// in it: each payload is appended, deflated, to the segment of the UTC day it was written, and its
// row holds a reference (`@<segment>:<offset>:<length>`). Storing them in PGlite cost the backend
// thread about 7% of its CPU per event at its maximum (docs/benchmarks.md, 2026-12-02 (fourth)
// and 2026-12-04). The store (pg-event-store.ts) keeps the rules that make this safe:
// - a segment is written and synced before the transaction that refers to it commits (`sync`; an
//   append is gathered in a buffer of up to 256 KB until then), so a committed row never points
//   past what reached the disk;
// - an event deleted with its issue has its bytes overwritten with zeros (`erase`, by the writer,
//   working off the list the deletion recorded: payload-erasures.ts); a read then finds nothing;
// - a segment goes once the newest event that refers to it is older than retention's cutoff
//   (the store records that time per segment, in the same transaction as the rows; `remove`); a
//   read that raced the removal finds nothing.
// Bytes no row refers to go on the erasure list where the store can tell (insertEvents): the copy
// of an event stored before, one the pipeline did not store (a second copy in its batch, a project
// gone), and those of a batch that failed before its rows committed. What a crash between the
// write and the commit leaves past a segment's committed end is cut off at the next start
// (uncommitted-payloads.ts). The gaps that gathered bytes a failed write lost leave stay until
// their segment goes; the next sync's failure keeps every row from referring to them.
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { makeDirectoryDurably, syncDirectorySync } from '../disk-sync.ts';
import { UnavailableError } from '../../core/errors.ts';

/** A segment's name: the UTC day it was written (YYYYMMDD) and its number within that day. */
const SEGMENT_NAME = /^(\d{8})-(\d{4})$/;
const SEGMENT_FILE = /^(\d{8}-\d{4})\.seg$/;
/** A reference: its segment, offset and length (reference-sql.ts reads it the same way in SQL). */
export const REFERENCE = /^@(\d{8}-\d{4}):(\d{1,15}):(\d{1,9})$/;

/** A segment is closed and the next one opened past this size, so that no file grows without bound within a day. */
const DEFAULT_SEGMENT_BYTES = 256 * 1024 * 1024;

const DAY_MS = 86_400_000;

/** Zeros written at a time when erasing, and compared with when reading: one buffer for every payload. */
const ZEROS = Buffer.alloc(64 * 1024);

/**
 * Appends are gathered up to this many bytes and written in one call: a write() per payload of
 * about 2 KB cost the backend thread about 4 µs more CPU than its share of a 256 KB one
 * (docs/benchmarks.md, 2026-12-04 (fifth)). Bounded, so a batch's payloads still leave the heap
 * as they are made rather than riding along with it.
 */
const WRITE_BUFFER_BYTES = 256 * 1024;

interface PayloadSegmentsOptions {
  /** Only the thread that stores events appends, erases and removes; others (the main thread's) only read. */
  mode: 'writer' | 'reader';
  segmentBytes?: number;
  /** Milliseconds since the epoch, for the day a payload is written on (tests move it). */
  now?: () => number;
  /** Hears, once, of a sync that failed: the writer's owner stops, as for the database's own. */
  onSyncFailure?: (error: Error) => void;
}

/** A segment whose file could not be opened, written or removed, with why. */
interface SegmentFailure {
  segment: string;
  error: Error;
}

/** What one call of `erase` did. */
export interface ErasureOutcome {
  /** Payloads overwritten with zeros and synced. */
  overwritten: number;
  /** Segments whose file could not be opened or written: their payloads are not known to be erased (some may be, unsynced). */
  failed: Array<SegmentFailure & { payloads: number }>;
}

/** What one call of `remove` did. */
interface RemovalOutcome {
  /** Removed, or found gone already. */
  gone: string[];
  /** Their files could not be removed. */
  failed: SegmentFailure[];
}

interface OpenSegment {
  name: string;
  fd: number;
  /** Its size once what waits in the write buffer is written. */
  size: number;
  /** The UTC day it takes appends on, as whole days since the epoch. */
  day: number;
}

export class PayloadSegments {
  private open: OpenSegment | undefined;
  /** Segments appended to since the last sync, and whether a new one's directory entry needs syncing. */
  private readonly unsynced = new Map<string, number>();
  private directoryUnsynced = false;
  /** Appended bytes of the open segment not written yet: its last `writeBufferLength` bytes. */
  private writeBuffer: Buffer | undefined;
  private writeBufferLength = 0;
  /**
   * A write of the buffer that failed: the bytes it held are gone, so the next sync throws this
   * (once), failing the batch that referred to them before it commits. One sync reports it to
   * one batch: this relies on the one writer storing one batch at a time (its queue hands the
   * pipeline one batch at a time), as a sync that found the buffer empty would let an
   * overlapping batch commit. Not final, unlike a failed sync: a full disk may have room again.
   */
  private lostWrite: Error | undefined;
  /**
   * Set by the first sync that fails, and thrown by every append and sync after it: once a sync
   * has failed, Linux may have dropped the unwritten pages and a later sync report success, so
   * no row may ever refer to what was appended here since (the queue and the database stop the
   * same way).
   */
  private syncFailure: Error | undefined;

  constructor(
    readonly dir: string,
    private readonly options: PayloadSegmentsOptions,
  ) {}

  /** Over `dir`, made (owner only) and synced into its parent if it is new. */
  static async open(dir: string, options: PayloadSegmentsOptions): Promise<PayloadSegments> {
    await makeDirectoryDurably(dir, 0o700);
    return new PayloadSegments(dir, options);
  }

  /** Whether a stored payload column holds a reference here rather than the payload itself. */
  static isReference(stored: string): boolean {
    return stored.startsWith('@');
  }

  /** The segment a reference points into. */
  static segmentOf(reference: string): string {
    return parseReference(reference).segment;
  }

  /** Where in its segment the bytes a reference points at end. */
  static endOf(reference: string): number {
    const { offset, length } = parseReference(reference);
    return offset + length;
  }

  /**
   * Appends `bytes` to today's segment (gathered or written, not yet synced) and returns their reference.
   * Never bytes that are all zeros: a read takes those for erased (no deflate stream is).
   */
  append(bytes: Uint8Array): string {
    if (this.options.mode !== 'writer') throw new Error('payload segments opened for reading cannot be appended to');
    if (this.syncFailure) throw this.syncFailure;
    try {
      return this.appendToSegment(bytes);
    } catch (error) {
      throw unwritable(`could not write event payloads in ${this.dir}`, error);
    }
  }

  private appendToSegment(bytes: Uint8Array): string {
    const segment = this.segmentForAppend();
    const offset = segment.size;
    if (bytes.length > WRITE_BUFFER_BYTES - this.writeBufferLength) this.writeBuffered(segment);
    if (bytes.length >= WRITE_BUFFER_BYTES) writeFully(segment.fd, bytes, offset);
    else {
      (this.writeBuffer ??= Buffer.allocUnsafe(WRITE_BUFFER_BYTES)).set(bytes, this.writeBufferLength);
      this.writeBufferLength += bytes.length;
    }
    segment.size += bytes.length;
    this.unsynced.set(segment.name, segment.fd);
    return `@${segment.name}:${offset}:${bytes.length}`;
  }

  /** Makes everything appended so far durable: each segment's data, and the directory entry of a new one. */
  sync(): void {
    if (this.syncFailure) throw this.syncFailure;
    if (this.open) {
      try {
        this.writeBuffered(this.open);
      } catch (error) {
        this.lostWrite = undefined; // reported here, by this sync
        throw error;
      }
    }
    const lost = this.lostWrite;
    this.lostWrite = undefined;
    if (lost) throw lost;
    try {
      for (const [name, fd] of this.unsynced) {
        fdatasyncSync(fd);
        if (name !== this.open?.name) closeSync(fd); // closed for appends since
        this.unsynced.delete(name);
      }
      if (this.directoryUnsynced) {
        syncDirectorySync(this.dir);
        this.directoryUnsynced = false;
      }
    } catch (error) {
      throw this.syncFailed(error);
    }
  }

  /**
   * The bytes a reference points at; undefined when they are gone: erased (all zeros, which no
   * deflate stream is) or their segment removed by retention, either of which a read can race.
   */
  read(reference: string): Buffer | undefined {
    const { segment, offset, length } = parseReference(reference);
    const buffered = this.readBuffered(segment, offset, length);
    if (buffered) return isErased(buffered) ? undefined : buffered;
    const fd = this.openIfPresent(segment, 'r');
    if (fd === undefined) return undefined;
    try {
      const bytes = Buffer.allocUnsafe(length);
      let read = 0;
      while (read < length) {
        const n = readSync(fd, bytes, read, length - read, offset + read);
        if (n === 0) throw new Error(`event payload ${reference} ends past its segment's end: the segment was cut short`);
        read += n;
      }
      return isErased(bytes) ? undefined : bytes;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Overwrites the bytes of each reference with zeros and syncs them: the payloads of deleted
   * events. Counts what it overwrote; the rest were in segments retention has removed, or in one
   * it could not open or write (`failed`, each with its error: a file made read-only or
   * unreadable must not hold up every other segment's erasures). A failed sync here is as final
   * as one of appends (the same file may be the one appended to), so it throws.
   */
  erase(references: string[]): ErasureOutcome {
    if (this.options.mode !== 'writer') throw new Error('payload segments opened for reading cannot be erased');
    if (this.syncFailure) throw this.syncFailure;
    // A missing directory is not a removed segment: the data directory lost its payloads.
    if (!existsSync(this.dir)) throw new Error(`the event payload directory ${this.dir} is missing`);
    const bySegment = new Map<string, { offset: number; length: number }[]>();
    for (const reference of references) {
      const { segment, offset, length } = parseReference(reference);
      const ranges = bySegment.get(segment) ?? [];
      ranges.push({ offset, length });
      bySegment.set(segment, ranges);
    }
    const outcome: ErasureOutcome = { overwritten: 0, failed: [] };
    for (const [segment, ranges] of bySegment) {
      ranges.sort((a, b) => a.offset - b.offset);
      let fd: number | undefined;
      let overwritten = 0;
      try {
        fd = this.openIfPresent(segment, 'r+');
        if (fd === undefined) continue; // removed by retention meanwhile
        // Bytes past the file's end were cut off (uncommitted-payloads.ts): zeros written there
        // would only grow the file.
        const size = this.open?.name === segment ? this.open.size : fstatSync(fd).size;
        for (const { offset, length } of ranges) {
          const end = Math.min(offset + length, size);
          if (offset >= end) continue;
          for (let done = offset; done < end;) done += writeSync(fd, ZEROS, 0, Math.min(ZEROS.length, end - done), done);
          overwritten += 1;
        }
      } catch (error) {
        if (fd !== undefined) closeSync(fd);
        outcome.failed.push({ segment, payloads: ranges.length, error: error as Error });
        continue;
      }
      try {
        fdatasyncSync(fd);
      } catch (error) {
        throw this.syncFailed(error);
      } finally {
        closeSync(fd);
      }
      outcome.overwritten += overwritten;
    }
    return outcome;
  }

  /** The bytes the segment's file holds (what waits in the write buffer not counted); undefined when it is gone. */
  sizeOf(segment: string): number | undefined {
    try {
      return statSync(join(this.dir, `${segment}.seg`)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * Cuts the segment back to `end` bytes, synced, when it holds more; returns how many bytes went.
   * For the bytes past a segment's committed end, which no row can refer to (a crash came between
   * their write and their batch's commit). Only before the first append: after it, the end of the
   * segment being appended to is the appends'.
   */
  cut(segment: string, end: number): number {
    return this.setLength(segment, end, 'cut', (size) => size > end);
  }

  /**
   * Grows the segment to `end` bytes with zeros, synced, when it holds fewer; returns how many
   * bytes it gained. For a file shorter than what committed rows refer to (a damaged data
   * directory): appends then go past every byte a row refers to, never under one. Only before
   * the first append, as `cut`.
   */
  grow(segment: string, end: number): number {
    return this.setLength(segment, end, 'grown', (size) => size < end);
  }

  private setLength(segment: string, end: number, what: string, when: (size: number) => boolean): number {
    if (this.options.mode !== 'writer') throw new Error(`payload segments opened for reading cannot be ${what}`);
    if (this.open || this.unsynced.size > 0) throw new Error(`payload segments are ${what} only before the first append`);
    const fd = this.openIfPresent(segment, 'r+');
    if (fd === undefined) return 0;
    try {
      const size = fstatSync(fd).size;
      if (!when(size)) return 0;
      ftruncateSync(fd, end);
      try {
        fdatasyncSync(fd);
      } catch (error) {
        throw this.syncFailed(error);
      }
      return Math.abs(size - end);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Removes the named segments written before yesterday (UTC); returns the names now gone
   * (removed, or found gone already) and those whose file could not be removed, each with its
   * error (one such file must not keep the others). Today's and yesterday's stay whatever the
   * caller thinks: a batch whose payloads were written there may not have committed yet; so does
   * the segment being appended to or waiting for its sync, whatever its day (the clock may jump).
   * Only the writer removes.
   */
  remove(segments: string[]): RemovalOutcome {
    if (this.options.mode !== 'writer') throw new Error('payload segments opened for reading cannot be removed');
    const yesterday = utcDay(this.now() - DAY_MS);
    const outcome: RemovalOutcome = { gone: [], failed: [] };
    for (const segment of segments) {
      if (!SEGMENT_NAME.test(segment) || segment.slice(0, 8) >= yesterday) continue;
      if (segment === this.open?.name || this.unsynced.has(segment)) continue;
      try {
        unlinkSync(join(this.dir, `${segment}.seg`));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          outcome.failed.push({ segment, error: error as Error });
          continue;
        }
      }
      outcome.gone.push(segment);
    }
    return outcome;
  }

  /** The segments on disk, oldest first. */
  list(): string[] {
    return readdirSync(this.dir)
      .map((file) => SEGMENT_FILE.exec(file)?.[1])
      .filter((name): name is string => name !== undefined)
      .sort();
  }

  /**
   * Writes what was gathered and closes the descriptors (throwing, after closing them, if that
   * write failed); whatever was appended and not synced is as durable as the kernel makes it.
   */
  close(): void {
    try {
      if (this.open) this.writeBuffered(this.open);
    } finally {
      for (const [name, fd] of this.unsynced) if (name !== this.open?.name) closeSync(fd);
      if (this.open) closeSync(this.open.fd);
      this.open = undefined;
      this.unsynced.clear();
    }
  }

  /** Writes what waits in the buffer, at the end of `segment` (the open one). */
  private writeBuffered(segment: OpenSegment): void {
    const length = this.writeBufferLength;
    if (length === 0) return;
    this.writeBufferLength = 0;
    try {
      writeFully(segment.fd, this.writeBuffer!.subarray(0, length), segment.size - length);
    } catch (error) {
      // The segment's size stays where it was: later appends go past the gap, which no row refers
      // to (zeros, or what a partial write left, or the file's end if nothing was written after).
      this.lostWrite = unwritable(`could not write event payloads to ${segment.name}.seg in ${this.dir}`, error);
      throw this.lostWrite;
    }
  }

  /** A copy of bytes still in the write buffer, or undefined where they are not. */
  private readBuffered(segment: string, offset: number, length: number): Buffer | undefined {
    if (segment !== this.open?.name || this.writeBufferLength === 0) return undefined;
    const start = offset - (this.open.size - this.writeBufferLength);
    if (start < 0 || offset + length > this.open.size) return undefined;
    return Buffer.from(this.writeBuffer!.subarray(start, start + length));
  }

  /** A descriptor of the segment's file; undefined when it is gone (retention removed it). */
  private openIfPresent(segment: string, flags: 'r' | 'r+'): number | undefined {
    try {
      return openSync(join(this.dir, `${segment}.seg`), flags);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Makes a sync's failure final (see syncFailure) and tells the owner, once. */
  private syncFailed(error: unknown): Error {
    if (this.syncFailure) return this.syncFailure;
    this.syncFailure = new Error(`could not sync the event payload files in ${this.dir} to disk: ${String(error)}`, {
      cause: error,
    });
    this.options.onSyncFailure?.(this.syncFailure);
    return this.syncFailure;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private segmentForAppend(): OpenSegment {
    const now = this.now();
    const today = Math.floor(now / DAY_MS);
    const limit = this.options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    const current = this.open;
    if (current && current.day === today && current.size < limit) return current;
    if (current) this.writeBuffered(current);
    // A segment left with unsynced bytes keeps its descriptor until sync() closes it.
    if (current && !this.unsynced.has(current.name)) closeSync(current.fd);
    this.open = undefined;
    const day = utcDay(now);
    const todays = this.list().filter((name) => name.startsWith(day));
    const newest = todays.at(-1);
    if (newest !== undefined && newest !== current?.name) {
      // After a restart, today's newest segment takes more while it has room, past whatever it
      // holds (a torn tail no committed row refers to included). Not opened to append: Linux
      // ignores the position of a write to a file opened so.
      // (A descriptor still waiting for its sync is reused: the clock went back a day.)
      const kept = this.unsynced.get(newest);
      const fd = kept ?? openSync(join(this.dir, `${newest}.seg`), 'r+');
      let size: number;
      try {
        size = fstatSync(fd).size;
      } catch (error) {
        if (kept === undefined) closeSync(fd);
        throw error;
      }
      if (size < limit) {
        // Made by a process that may have died before syncing the file's directory entry.
        this.directoryUnsynced = true;
        return (this.open = { name: newest, fd, size, day: today });
      }
      if (kept === undefined) closeSync(fd);
    }
    const name = nextName(day, todays);
    const fd = openSync(join(this.dir, `${name}.seg`), 'wx', 0o600);
    this.directoryUnsynced = true;
    return (this.open = { name, fd, size: 0, day: today });
  }
}

/** Writes all of `bytes` at `position`: a write may take fewer. */
function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  for (let written = 0; written < bytes.length;)
    written += writeSync(fd, bytes, written, bytes.length - written, position + written);
}

/** Whether `bytes` are all zeros. A deflate stream's first byte is rarely 0, so this is mostly one comparison. */
function isErased(bytes: Buffer): boolean {
  for (let at = 0; at < bytes.length; at += ZEROS.length) {
    const end = Math.min(bytes.length, at + ZEROS.length);
    if (bytes.compare(ZEROS, 0, end - at, at, end) !== 0) return false;
  }
  return true;
}

function utcDay(millis: number): string {
  return new Date(millis).toISOString().slice(0, 10).replaceAll('-', '');
}

/** The segment of `day` after the newest of `todays` (its segments on disk). */
function nextName(day: string, todays: string[]): string {
  const numbers = todays.map((name) => Number(SEGMENT_NAME.exec(name)![2]));
  const next = numbers.length === 0 ? 0 : Math.max(...numbers) + 1;
  if (next > 9999) throw new Error(`more than 10,000 payload segments for ${day}`);
  return `${day}-${String(next).padStart(4, '0')}`;
}

function parseReference(reference: string): { segment: string; offset: number; length: number } {
  const match = REFERENCE.exec(reference);
  if (!match) throw new Error(`not an event payload reference: ${JSON.stringify(reference.slice(0, 64))}`);
  return { segment: match[1]!, offset: Number(match[2]), length: Number(match[3]) };
}

/**
 * A failed write of payloads (a full or failing disk) as UnavailableError: the dispatcher gives
 * the batch back to the queue, which tries it again for as long as it takes. As a plain error it
 * made the dispatcher pass the batch's records over after a few tries each, while the stores
 * still answered their ping: accepted events lost for as long as the disk was full.
 */
function unwritable(what: string, error: unknown): UnavailableError {
  if (error instanceof UnavailableError) return error;
  return new UnavailableError(`${what}: ${String(error)}`, { cause: error });
}
