// A consumer group's committed position in a topic, kept in `<topic dir>/<group>.offset`.
// Written to a temporary file, synced and renamed, so a crash leaves the old or the new value.
import { open, readFile, rename } from 'node:fs/promises';
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

export async function writeCommittedOffset(dir: string, group: string, offset: number): Promise<void> {
  const path = offsetPath(dir, group);
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(String(offset));
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

function offsetPath(dir: string, group: string): string {
  if (!/^[A-Za-z0-9_.-]+$/.test(group)) throw new Error(`invalid consumer group name "${group}"`);
  return join(dir, `${group}.offset`);
}
