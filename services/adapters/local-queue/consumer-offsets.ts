// A consumer group's committed position in a topic, kept in `<topic dir>/<group>.offset`.
// Written to a temporary file, synced and renamed, so the file never holds a torn value.
// The directory is not synced after the rename: a crash may bring back an older position (or
// none, after a group's first commit), which hands those records over again; the stores
// recognise events and logs by id and count each once (docs/path-of-an-event.md). A directory
// sync at every commit would block the thread for a second sync per batch.
import { closeSync, fdatasyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export async function readCommittedOffset(dir: string, group: string): Promise<number | undefined> {
  try {
    const text = (await readFile(offsetPath(dir, group), 'utf8')).trim();
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Blocks the thread for its write and sync (0.5-0.8 ms on this machine's idle disk; longer while
 * the writer's appends sync too): the consumer's thread is the dispatcher's, which commits between
 * two batches, and whose busy event loop would delay each of five hops through libuv's pool
 * (open, write, sync, close, rename).
 */
export function writeCommittedOffset(dir: string, group: string, offset: number): void {
  const path = offsetPath(dir, group);
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, String(offset));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

function offsetPath(dir: string, group: string): string {
  if (!/^[A-Za-z0-9_.-]+$/.test(group)) throw new Error(`invalid consumer group name "${group}"`);
  return join(dir, `${group}.offset`);
}
