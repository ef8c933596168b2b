// Standalone BlobStore: one file per blob under a root directory (`<data dir>/blobs`), the key
// being its relative path. A put writes a temp file beside the target, fsyncs it, renames it
// into place and fsyncs the directory, so a crash leaves the old blob or the new one, never
// half of one. Temp files are named with `~`, which no key may contain, so no key can hit one.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConflictError, UserInputError } from '../../core/errors.ts';
import { makeDirectoryDurably, syncDirectoriesUpTo } from '../disk-sync.ts';
import {
  assertBlobKey,
  blobCursor,
  isBlobKey,
  parseListBlobsOptions,
  type BlobInfo,
  type BlobStore,
  type ListBlobsOptions,
} from '../../core/ports/blob-store.ts';
import type { Page } from '../../core/ports/page.ts';
import { compareText } from '../../core/compare-text.ts';

const TEMP_NAME = /^~[0-9a-f]{16}\.tmp$/;
/** Temp files older than this at open are leftovers of a crash, not a put still running. */
const STALE_TEMP_MS = 60 * 60_000;
/** A delete may remove the directory a put just created; the put then tries again. */
const PUT_ATTEMPTS = 4;
const DELETE_CONCURRENCY = 16;

/**
 * Maps a key to its file. Checks on its own, whatever validation ran before, that the path
 * stays strictly inside the root and spells exactly the key's segments (no `..`, no absolute
 * path, no separator the key did not have).
 */
export function blobPath(root: string, key: string): string {
  const base = resolve(root);
  const path = resolve(base, key);
  const rel = relative(base, path);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  if (!inside || key.includes('\0') || rel.split(sep).join('/') !== key) {
    throw new UserInputError(`blob key ${JSON.stringify(key.slice(0, 80))} does not name a file inside the blob directory`);
  }
  return path;
}

/** Creates the root if needed and removes temp files a crash left behind. */
export async function openFsBlobStore(root: string, now: () => number = Date.now): Promise<FsBlobStore> {
  const store = new FsBlobStore(root);
  await makeDirectoryDurably(store.root);
  await removeStaleTempFiles(store.root, now() - STALE_TEMP_MS);
  return store;
}

export class FsBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, body: Buffer): Promise<void> {
    const path = this.pathOf(key);
    for (let attempt = 1; ; attempt++) {
      try {
        await writeAtomically(this.root, path, body);
        return;
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' && attempt < PUT_ATTEMPTS) continue;
        if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR') {
          throw new ConflictError(
            `blob key ${JSON.stringify(key)} clashes with another key: a key cannot be both a blob and a folder of blobs`,
          );
        }
        throw error;
      }
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    const path = this.pathOf(key);
    try {
      return await readFile(path);
    } catch (error) {
      if (isAbsence(error)) return undefined;
      throw error;
    }
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      return info.isFile() ? { key, size: info.size, lastModified: info.mtime } : undefined;
    } catch (error) {
      if (isAbsence(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.remove(this.pathOf(key));
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    const paths = [...new Set(keys)].map((key) => this.pathOf(key));
    for (let i = 0; i < paths.length; i += DELETE_CONCURRENCY) {
      await Promise.all(paths.slice(i, i + DELETE_CONCURRENCY).map((path) => this.remove(path)));
    }
  }

  async list(prefix: string, options?: ListBlobsOptions): Promise<Page<BlobInfo>> {
    const { limit, after } = parseListBlobsOptions(prefix, options);
    // `projects/1` lists the folder `projects` for names starting with `1`; `projects/1/` lists `projects/1`.
    const slash = prefix.lastIndexOf('/');
    const folderKey = slash < 0 ? '' : prefix.slice(0, slash);
    const namePrefix = prefix.slice(slash + 1);
    const folder = folderKey === '' ? this.root : blobPath(this.root, folderKey);
    const items: BlobInfo[] = [];
    // One more than the page, to know whether another page follows.
    for await (const item of walk(folder, folderKey === '' ? '' : `${folderKey}/`, namePrefix, after)) {
      items.push(item);
      if (items.length > limit) break;
    }
    if (items.length <= limit) return { items };
    items.length = limit;
    return { items, nextCursor: blobCursor(items[limit - 1]!.key) };
  }

  async ping(): Promise<void> {
    const info = await stat(this.root);
    if (!info.isDirectory()) throw new Error(`blob directory ${this.root} is not a directory`);
  }

  async close(): Promise<void> {}

  private pathOf(key: string): string {
    assertBlobKey(key);
    return blobPath(this.root, key);
  }

  private async remove(path: string): Promise<void> {
    try {
      await unlink(path);
    } catch (error) {
      if (isAbsence(error) || errorCode(error) === 'EPERM') return;
      throw error;
    }
    await pruneEmptyFolders(this.root, dirname(path));
  }
}

async function writeAtomically(root: string, path: string, body: Buffer): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  const temp = join(folder, `~${randomBytes(8).toString('hex')}.tmp`);
  const file = await open(temp, 'wx');
  try {
    try {
      await file.writeFile(body);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  // The rename is durable once its folder is synced, and the folder once each one above it is, up
  // to the root (synced into its parent when the store opened). All of them, at every put: a
  // folder that already existed may have been made by a put still syncing it (the other thread's
  // store) or by one whose sync failed. A put is a source map or an upload chunk, not an event.
  await syncDirectoriesUpTo(folder, root);
}

/** Removes folders a delete left empty, so deleted projects leave no trail; stops at the root. */
async function pruneEmptyFolders(root: string, folder: string): Promise<void> {
  for (let dir = folder; dir !== root && dir.startsWith(root + sep); dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty (or already gone): the folders above are not empty either
    }
  }
}

/**
 * Blobs under `folder` in ascending key order (the order S3 lists in, where `a-b` < `a/c` <
 * `ab`, so a folder `a` sorts as `a/`), skipping every key up to and including `after`.
 */
async function* walk(folder: string, keyBase: string, namePrefix: string, after: string | undefined): AsyncGenerator<BlobInfo> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (isAbsence(error)) return;
    throw error;
  }
  const children = entries
    .filter((e) => e.name.startsWith(namePrefix) && isBlobKey(e.name) && (e.isFile() || e.isDirectory()))
    .map((e) => ({ name: e.name, key: keyBase + e.name, isFolder: e.isDirectory() }))
    // Keys are ASCII, so code-unit order is S3's byte order.
    .sort((a, b) => compareText(a.isFolder ? `${a.key}/` : a.key, b.isFolder ? `${b.key}/` : b.key));
  for (const child of children) {
    const path = join(folder, child.name);
    if (child.isFolder) {
      // Every key in the folder lies between `<key>/` and `<key>0` ('0' follows '/').
      if (after !== undefined && compareText(after, `${child.key}0`) >= 0) continue;
      yield* walk(path, `${child.key}/`, '', after);
      continue;
    }
    if (after !== undefined && compareText(child.key, after) <= 0) continue;
    try {
      const info = await stat(path);
      if (info.isFile()) yield { key: child.key, size: info.size, lastModified: info.mtime };
    } catch (error) {
      if (!isAbsence(error)) throw error; // deleted since readdir: not listed
    }
  }
}

async function removeStaleTempFiles(folder: string, olderThanMs: number): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      await removeStaleTempFiles(path, olderThanMs);
    } else if (TEMP_NAME.test(entry.name)) {
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtimeMs < olderThanMs) await unlink(path).catch(() => {});
    }
  }
}

function isAbsence(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
