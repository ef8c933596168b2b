// The payload files themselves: what is appended reads back, survives a reopen, rolls by day and
// size, is zeroed when erased, and goes only when it is old enough.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failBlockingWrites, replaceBlockingSyncs } from '../../../test/support/replaced-syncs.ts';
import { PayloadSegments } from './payload-segments.ts';

const DAY = 86_400_000;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function segments(now: () => number, options: { segmentBytes?: number; onSyncFailure?: (error: Error) => void } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'errata-payloads-'));
  dirs.push(dir);
  return PayloadSegments.open(join(dir, 'payloads'), { mode: 'writer', now, ...options });
}

const at = (iso: string) => () => Date.parse(iso);

describe('PayloadSegments', () => {
  it('reads back what it appended, in a segment named for the UTC day, owner-only', async () => {
    const files = await segments(at('2026-12-04T23:59:59Z'));
    const first = files.append(Buffer.from('first payload'));
    const second = files.append(Buffer.from([0, 1, 2, 255]));
    expect(first).toBe('@20261204-0000:0:13');
    expect(second).toBe('@20261204-0000:13:4');
    expect(files.read(second)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(files.read(first)?.toString()).toBe('first payload');
    expect(statSync(join(files.dir, '20261204-0000.seg')).mode & 0o777).toBe(0o600);
    expect(statSync(files.dir).mode & 0o777).toBe(0o700);
    files.close();
  });

  it('gathers appends into one write of up to 256 KB, made when full, at a sync, a new day or a close', async () => {
    let now = Date.parse('2026-12-04T23:00:00Z');
    const files = await segments(() => now);
    const file = join(files.dir, '20261204-0000.seg');
    const payload = (i: number) => Buffer.alloc(2_000, String.fromCharCode(97 + (i % 26)));
    const references = Array.from({ length: 131 }, (_, i) => files.append(payload(i)));
    expect(statSync(file).size).toBe(0); // 262,000 bytes: all still gathered
    expect(files.read(references[3]!)).toEqual(payload(3)); // the writer reads what it gathered
    references.push(files.append(payload(131))); // 264,000 would pass 262,144: the 131 are written first
    expect(statSync(file).size).toBe(262_000);
    const large = Buffer.alloc(300_000, 'L'); // larger than the buffer: written at once, after what was gathered
    references.push(files.append(large));
    expect(statSync(file).size).toBe(564_000);
    const again = files.append(Buffer.from('gathered again'));
    files.sync();
    expect(statSync(file).size).toBe(564_014);
    const reader = new PayloadSegments(files.dir, { mode: 'reader' });
    references.slice(0, 132).forEach((reference, i) => expect(reader.read(reference)).toEqual(payload(i)));
    expect(reader.read(references[132]!)).toEqual(large);
    expect(reader.read(again)?.toString()).toBe('gathered again');

    const lastOfDay = files.append(Buffer.from('before midnight'));
    now += 3_600_000;
    const nextDay = files.append(Buffer.from('after midnight'));
    expect(readFileSync(file).subarray(564_014).toString()).toBe('before midnight');
    expect(nextDay).toBe('@20261205-0000:0:14');
    files.close(); // not synced, but written: as durable as the kernel makes it, as before
    expect(reader.read(lastOfDay)?.toString()).toBe('before midnight');
    expect(reader.read(nextDay)?.toString()).toBe('after midnight');
  });

  it('writes what was gathered before going back to an earlier day, when the clock goes back', async () => {
    let now = Date.parse('2026-12-04T10:00:00Z');
    const files = await segments(() => now);
    const first = files.append(Buffer.from('a'));
    files.sync();
    now += DAY;
    const tomorrow = files.append(Buffer.from('tomorrow'));
    now -= DAY;
    const back = files.append(Buffer.from('back'));
    expect(readFileSync(join(files.dir, '20261205-0000.seg')).toString()).toBe('tomorrow');
    expect(back).toBe('@20261204-0000:1:4');
    files.sync();
    const reader = new PayloadSegments(files.dir, { mode: 'reader' });
    expect([first, tomorrow, back].map((reference) => reader.read(reference)?.toString())).toEqual(['a', 'tomorrow', 'back']);
    files.close();
  });

  it('fails the next sync once where gathered payloads could not be written, and goes on past them', async () => {
    const files = await segments(at('2026-12-04T10:00:00Z'));
    const committed = files.append(Buffer.from('committed'));
    files.sync();
    const lost = files.append(Buffer.from('lost to a full disk'));
    let restore = failBlockingWrites();
    try {
      expect(() => files.sync()).toThrow(/could not write event payloads to 20261204-0000\.seg .* ENOSPC/);
    } finally {
      restore();
    }
    // Room again: the batch that referred to the lost bytes failed; the next goes on past them.
    const after = files.append(Buffer.from('after'));
    expect(after).toBe('@20261204-0000:28:5');
    files.sync();
    expect(files.read(committed)?.toString()).toBe('committed');
    expect(files.read(lost)).toBeUndefined(); // a gap of zeros, read as erased (no row refers to it)
    expect(files.read(after)?.toString()).toBe('after');

    // Written when the buffer filled, during an append: that append fails, and so does the next sync, once.
    const gathered = files.append(Buffer.alloc(200_000, 'g'));
    restore = failBlockingWrites();
    try {
      expect(() => files.append(Buffer.alloc(100_000, 'h'))).toThrow(/ENOSPC/);
    } finally {
      restore();
    }
    expect(() => files.sync()).toThrow(/could not write event payloads .* ENOSPC/);
    files.sync();
    const last = files.append(Buffer.from('last'));
    files.sync();
    expect(files.read(gathered)).toBeUndefined();
    expect(files.read(last)?.toString()).toBe('last');
    files.close();
  });

  it('syncs each segment written to, and the directory of a new one, once per sync', async () => {
    const files = await segments(at('2026-12-04T10:00:00Z'));
    const synced: string[] = [];
    const restore = replaceBlockingSyncs((path) => synced.push(path));
    try {
      files.append(Buffer.from('a'));
      files.append(Buffer.from('b'));
      files.sync();
      expect(synced).toEqual([join(files.dir, '20261204-0000.seg'), files.dir]);
      synced.length = 0;
      files.sync();
      expect(synced).toEqual([]);
      files.append(Buffer.from('c'));
      files.sync();
      expect(synced).toEqual([join(files.dir, '20261204-0000.seg')]);
    } finally {
      restore();
      files.close();
    }
  });

  it('refuses every append and sync after a sync failed, and says so once', async () => {
    const failures: Error[] = [];
    const files = await segments(at('2026-12-04T10:00:00Z'), { onSyncFailure: (error) => failures.push(error) });
    files.append(Buffer.from('lost, perhaps'));
    const restore = replaceBlockingSyncs((path) => {
      if (path.endsWith('.seg')) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    try {
      expect(() => files.sync()).toThrow(/could not sync the event payload files .* EIO/);
    } finally {
      restore();
    }
    // The disk answers again, but what the failed sync held may be gone: nothing more goes here.
    expect(() => files.sync()).toThrow(/could not sync/);
    expect(() => files.append(Buffer.from('more'))).toThrow(/could not sync/);
    expect(failures).toHaveLength(1);
    files.close();
  });

  it('goes on after a reopen past what the segment holds, a torn tail included', async () => {
    let now = Date.parse('2026-12-04T10:00:00Z');
    const files = await segments(() => now);
    const kept = files.append(Buffer.from('committed'));
    files.sync();
    files.close();
    writeFileSync(join(files.dir, '20261204-0000.seg'), 'torn', { flag: 'a' }); // a write the crash cut short
    const reopened = new PayloadSegments(files.dir, { mode: 'writer', now: () => now });
    const next = reopened.append(Buffer.from('after'));
    expect(next).toBe('@20261204-0000:13:5');
    expect(reopened.read(kept)?.toString()).toBe('committed');
    expect(reopened.read(next)?.toString()).toBe('after');
    // The process before may have died before syncing the new file's directory entry.
    const synced: string[] = [];
    const restore = replaceBlockingSyncs((path) => synced.push(path));
    try {
      reopened.sync();
    } finally {
      restore();
    }
    expect(synced).toEqual([join(files.dir, '20261204-0000.seg'), files.dir]);
    now += DAY;
    expect(reopened.append(Buffer.from('tomorrow'))).toBe('@20261205-0000:0:8');
    reopened.sync();
    reopened.close();
  });

  it('cuts a segment back to an end, synced, only before the first append and only for the writer', async () => {
    const files = await segments(at('2026-12-04T10:00:00Z'));
    const kept = files.append(Buffer.from('committed'));
    const orphan = files.append(Buffer.from('never committed'));
    files.sync();
    files.close();
    const file = join(files.dir, '20261204-0000.seg');
    const reopened = new PayloadSegments(files.dir, { mode: 'writer', now: at('2026-12-04T10:00:00Z') });
    expect(() => new PayloadSegments(files.dir, { mode: 'reader' }).cut('20261204-0000', 9)).toThrow(/reading/);
    const synced: string[] = [];
    const restore = replaceBlockingSyncs((path) => synced.push(path));
    let cut: number;
    try {
      cut = reopened.cut('20261204-0000', 9);
    } finally {
      restore();
    }
    expect(cut).toBe(15);
    expect(synced).toEqual([file]);
    expect(readFileSync(file).toString()).toBe('committed');
    expect(reopened.read(kept)?.toString()).toBe('committed');
    expect(() => reopened.read(orphan)).toThrow(/past its segment's end/);
    expect(reopened.cut('20261204-0000', 9)).toBe(0); // already there
    expect(reopened.cut('20261204-0000', 100)).toBe(0); // never grown
    expect(reopened.cut('20261203-0000', 0)).toBe(0); // gone
    expect(reopened.append(Buffer.from('next'))).toBe('@20261204-0000:9:4');
    expect(() => reopened.cut('20261204-0000', 9)).toThrow(/before the first append/);
    reopened.close();
  });

  it('grows a segment with zeros, synced, only before the first append', async () => {
    const files = await segments(at('2026-12-04T10:00:00Z'));
    files.append(Buffer.from('short'));
    files.sync();
    files.close();
    const reopened = new PayloadSegments(files.dir, { mode: 'writer', now: at('2026-12-04T10:00:00Z') });
    expect(reopened.grow('20261204-0000', 5)).toBe(0);
    expect(reopened.grow('20261204-0000', 9)).toBe(4);
    expect(readFileSync(join(files.dir, '20261204-0000.seg'))).toEqual(Buffer.concat([Buffer.from('short'), Buffer.alloc(4)]));
    expect(reopened.cut('20261204-0000', 12)).toBe(0);
    expect(reopened.append(Buffer.from('x'))).toBe('@20261204-0000:9:1');
    expect(() => reopened.grow('20261204-0000', 20)).toThrow(/grown only before the first append/);
    reopened.close();
  });

  it('erases nothing past the end of a file, rather than growing it', async () => {
    const files = await segments(at('2026-12-04T10:00:00Z'));
    const kept = files.append(Buffer.from('committed'));
    const gone = files.append(Buffer.from('secret'));
    const cutOff = '@20261204-0000:15:4'; // listed before a start cut the file back to 15 bytes
    files.sync();
    expect(files.erase([cutOff, gone])).toEqual({ overwritten: 1, failed: [] });
    expect(readFileSync(join(files.dir, '20261204-0000.seg'))).toEqual(
      Buffer.concat([Buffer.from('committed'), Buffer.alloc(6)]),
    );
    expect(files.read(kept)?.toString()).toBe('committed');
    files.close();
    // And from a writer that has not appended yet (its size from the file itself), as after a start.
    const reopened = new PayloadSegments(files.dir, { mode: 'writer', now: at('2026-12-04T10:00:00Z') });
    expect(reopened.erase([cutOff])).toEqual({ overwritten: 0, failed: [] });
    expect(reopened.sizeOf('20261204-0000')).toBe(15);
    expect(reopened.sizeOf('20261203-0000')).toBeUndefined();
    reopened.close();
  });

  it('starts the next segment of the day once one is full, and reopens the newest with room', async () => {
    const now = at('2026-12-04T10:00:00Z');
    const files = await segments(now, { segmentBytes: 10 });
    expect(files.append(Buffer.alloc(6))).toBe('@20261204-0000:0:6');
    expect(files.append(Buffer.alloc(6))).toBe('@20261204-0000:6:6');
    expect(files.append(Buffer.alloc(6))).toBe('@20261204-0001:0:6');
    files.sync();
    files.close();
    const reopened = new PayloadSegments(files.dir, { mode: 'writer', now, segmentBytes: 10 });
    expect(reopened.append(Buffer.alloc(1))).toBe('@20261204-0001:6:1');
    expect(reopened.list()).toEqual(['20261204-0000', '20261204-0001']);
    reopened.close();
  });

  it('overwrites erased payloads with zeros, leaving the others; only the writer erases', async () => {
    const files = await segments(at('2026-12-04T10:00:00Z'));
    const gone = files.append(Buffer.from('secret card number'));
    const kept = files.append(Buffer.from('kept'));
    const large = files.append(Buffer.alloc(100_000, 'x')); // more than one buffer of zeros
    files.sync();
    const reader = new PayloadSegments(files.dir, { mode: 'reader' });
    expect(() => reader.erase([gone])).toThrow(/reading/);
    expect(files.erase([large, gone])).toEqual({ overwritten: 2, failed: [] });
    const bytes = readFileSync(join(files.dir, '20261204-0000.seg'));
    expect(bytes.subarray(0, 18)).toEqual(Buffer.alloc(18));
    expect(bytes.includes('secret')).toBe(false);
    expect(bytes.subarray(22)).toEqual(Buffer.alloc(100_000));
    expect(reader.read(kept)?.toString()).toBe('kept');
    files.close();
  });

  it('reads nothing, rather than failing, where a payload was erased or its segment removed', async () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    const files = await segments(() => now);
    const erased = files.append(Buffer.alloc(70_000, 'y')); // compared past one buffer of zeros
    const zeroFirst = files.append(Buffer.from([0, 0, 7])); // not erased: one byte is not zero
    const lateByte = Buffer.alloc(70_000);
    lateByte[69_999] = 1; // past the first buffer of zeros compared
    const late = files.append(lateByte);
    const removed = files.append(Buffer.from('old'));
    files.sync();
    files.erase([erased]);
    const reader = new PayloadSegments(files.dir, { mode: 'reader' });
    expect(reader.read(erased)).toBeUndefined();
    expect(reader.read(zeroFirst)).toEqual(Buffer.from([0, 0, 7]));
    expect(reader.read(late)).toEqual(lateByte);
    now += 3 * DAY;
    files.append(Buffer.from('today'));
    files.sync();
    expect(files.remove(['20261201-0000'])).toEqual({ gone: ['20261201-0000'], failed: [] });
    expect(reader.read(removed)).toBeUndefined();
    expect(files.erase([removed])).toEqual({ overwritten: 0, failed: [] }); // its segment is gone: nothing to overwrite
    files.close();
  });

  it('erases the other segments when one cannot be opened or written, naming it with its error', async () => {
    let now = Date.parse('2026-12-03T10:00:00Z');
    const files = await segments(() => now);
    const unopenable = files.append(Buffer.from('in a file that cannot be opened'));
    now += DAY;
    const secret = files.append(Buffer.from('secret of a deleted event'));
    const unwritable = files.append(Buffer.from('where the disk is full'));
    files.sync();
    // A directory where the file was: opening it to write fails (EISDIR) even for root, whom a
    // read-only mode would not stop.
    rmSync(join(files.dir, '20261203-0000.seg'));
    mkdirSync(join(files.dir, '20261203-0000.seg'));
    const outcome = files.erase([unopenable, secret]);
    expect(outcome).toEqual({
      overwritten: 1,
      failed: [{ segment: '20261203-0000', payloads: 1, error: expect.objectContaining({ code: 'EISDIR' }) }],
    });
    expect(files.read(secret)).toBeUndefined();

    const restore = failBlockingWrites();
    let failedWrite: ReturnType<PayloadSegments['erase']>;
    try {
      failedWrite = files.erase([unwritable]);
    } finally {
      restore();
    }
    expect(failedWrite).toEqual({
      overwritten: 0,
      failed: [{ segment: '20261204-0000', payloads: 1, error: expect.objectContaining({ code: 'ENOSPC' }) }],
    });
    expect(files.read(unwritable)?.toString()).toBe('where the disk is full');
    // Not a failed sync: the files still take appends, and the erasure can be made again.
    files.append(Buffer.from('more'));
    files.sync();
    expect(files.erase([unwritable])).toEqual({ overwritten: 1, failed: [] });
    files.close();
  });

  it('refuses to erase when the directory itself is missing, and a failed sync of an erasure is final', async () => {
    const failures: Error[] = [];
    const files = await segments(at('2026-12-04T10:00:00Z'), { onSyncFailure: (error) => failures.push(error) });
    const payload = files.append(Buffer.from('to erase'));
    files.sync();
    const restore = replaceBlockingSyncs((path) => {
      if (path.endsWith('.seg')) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    try {
      expect(() => files.erase([payload])).toThrow(/could not sync the event payload files .* EIO/);
    } finally {
      restore();
    }
    expect(failures).toHaveLength(1);
    expect(() => files.append(Buffer.from('more'))).toThrow(/could not sync/);
    files.close();

    const moved = await segments(at('2026-12-04T10:00:00Z'));
    const lost = moved.append(Buffer.from('lost'));
    moved.sync();
    moved.close();
    rmSync(moved.dir, { recursive: true });
    expect(() => moved.erase([lost])).toThrow(/payload directory .* is missing/);
  });

  it('removes only segments older than yesterday, and only for the writer, past one it cannot remove', async () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    const files = await segments(() => now);
    for (let day = 0; day < 4; day++, now += DAY) files.append(Buffer.from(`day ${day}`));
    files.sync();
    // Now 12-05: 12-01, 12-02 and 12-03 exist, 12-04 is open; yesterday is 12-04.
    expect(files.list()).toEqual(['20261201-0000', '20261202-0000', '20261203-0000', '20261204-0000']);
    expect(() => new PayloadSegments(files.dir, { mode: 'reader' }).remove(['20261201-0000'])).toThrow(/reading/);
    // A name it never wrote counts as gone; a name that is not a segment's is left alone; a file
    // that cannot be removed (a directory in its place, which root's permissions would not stop)
    // is named with its error, and the others go all the same.
    rmSync(join(files.dir, '20261202-0000.seg'));
    mkdirSync(join(files.dir, '20261202-0000.seg'));
    expect(files.remove(['20261202-0000', '20261201-0000', '20261204-0000', '../db', '20261130-0007'])).toEqual({
      gone: ['20261201-0000', '20261130-0007'],
      failed: [{ segment: '20261202-0000', error: expect.objectContaining({ code: 'EISDIR' }) }],
    });
    expect(readdirSync(files.dir).sort()).toEqual(['20261202-0000.seg', '20261203-0000.seg', '20261204-0000.seg']);
    files.close();
  });

  it('keeps the segment being appended to or waiting for its sync, even when the clock jumps days ahead', async () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    const files = await segments(() => now);
    files.append(Buffer.from('not yet committed'));
    now += 9 * DAY;
    expect(files.remove(['20261201-0000'])).toEqual({ gone: [], failed: [] });
    files.append(Buffer.from('today')); // 20261201-0000 now waits only for its sync
    expect(files.remove(['20261201-0000'])).toEqual({ gone: [], failed: [] });
    files.sync();
    expect(files.remove(['20261201-0000'])).toEqual({ gone: ['20261201-0000'], failed: [] });
    expect(files.list()).toEqual(['20261210-0000']);
    files.close();
  });

  it('refuses references that are not its own, and appends from a reader', async () => {
    const files = await segments(at('2026-12-04T10:00:00Z'));
    expect(() => files.read('@../../etc/passwd:0:10')).toThrow(/not an event payload reference/);
    expect(() => files.read('AAAA')).toThrow(/not an event payload reference/);
    const reference = files.append(Buffer.from('short'));
    files.sync(); // written: the reference below runs past real bytes, not into an empty file
    expect(() => files.read(reference.replace(':5', ':50'))).toThrow(/cut short/);
    expect(() => new PayloadSegments(files.dir, { mode: 'reader' }).append(Buffer.from('x'))).toThrow(/reading/);
    files.close();
  });
});
