// BlobStore port: opaque bytes by key. Uploaded source maps and the chunks of an upload in
// progress live here; the MetadataStore indexes them. Standalone keeps them in a directory
// (adapters/fs-blobs), distributed in S3 (adapters/s3). The key syntax is defined once, below,
// so that every key is both a safe relative path and a portable S3 object name.
import { UserInputError } from '../errors.ts';
import { decodeCursor, encodeCursor, type Page } from './page.ts';

export interface BlobInfo {
  key: string;
  /** Bytes. */
  size: number;
  /** When the current content was written; S3 keeps whole seconds only. */
  lastModified: Date;
}

export interface PutBlobOptions {
  /** Stored as S3 Content-Type; other adapters may ignore it. Default application/octet-stream. */
  contentType?: string;
}

export interface ListBlobsOptions {
  /** 1..BLOB_LIST_MAX_LIMIT, default BLOB_LIST_MAX_LIMIT. A page may hold fewer items. */
  limit?: number;
  /** The nextCursor of the previous page of the same prefix. */
  cursor?: string;
}

/**
 * Keys are validated by every method (see assertBlobKey), so a bad one is a UserInputError
 * whatever the adapter. Keys form a tree: `a` and `a/b` cannot both exist (a directory cannot
 * be a file); the key schemes in use (`chunks/<sha1>`, `projects/<id>/maps/<debug-id>/<file>`)
 * never do that, and adapters are not required to detect it.
 */
export interface BlobStore {
  /** Creates or replaces the blob; resolves once it is durable, never leaving a partial one. */
  put(key: string, body: Buffer, options?: PutBlobOptions): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  head(key: string): Promise<BlobInfo | undefined>;
  /** Absent keys are not an error. */
  delete(key: string): Promise<void>;
  /** Absent keys are not an error; any number of keys (adapters batch them). */
  deleteMany(keys: readonly string[]): Promise<void>;
  /**
   * Blobs whose key starts with `prefix` (plain string prefix, as S3 has it: `projects/1`
   * also matches `projects/12/...`; end it with `/` for one folder), in ascending key order.
   */
  list(prefix: string, options?: ListBlobsOptions): Promise<Page<BlobInfo>>;
  /** Resolves when the store answers; used by /healthz and at start-up. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const BLOB_KEY_MAX_LENGTH = 512;
/** Also S3's upper bound for one ListObjectsV2 or DeleteObjects request. */
export const BLOB_LIST_MAX_LIMIT = 1000;

// Letters, digits, `.`, `_`, `-`: safe as a file name on every filesystem we run on, needs no
// escaping in an S3 URL, and leaves characters such as `~` free for adapters' own temp files.
const SEGMENT = /^[A-Za-z0-9._-]{1,255}$/;

export function isBlobKey(key: string): boolean {
  if (typeof key !== 'string' || key.length === 0 || key.length > BLOB_KEY_MAX_LENGTH) return false;
  return key.split('/').every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..');
}

export function assertBlobKey(key: string): void {
  if (!isBlobKey(key)) {
    throw new UserInputError(
      `invalid blob key ${show(key)}: use "/"-separated segments of letters, digits, ".", "_" and "-" ` +
        `(no empty, "." or ".." segment, no leading or trailing "/"), at most ${BLOB_KEY_MAX_LENGTH} characters`,
    );
  }
}

/** A list prefix is empty, or a valid key, optionally followed by one `/`. */
function assertBlobPrefix(prefix: string): void {
  if (prefix === '') return;
  const body = typeof prefix === 'string' && prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (!isBlobKey(body)) {
    throw new UserInputError(`invalid blob prefix ${show(prefix)}: use "" or a valid blob key, optionally ending with "/"`);
  }
}

/** Checks the list options once for every adapter; the cursor is the last key of the previous page. */
export function parseListBlobsOptions(
  prefix: string,
  options: ListBlobsOptions = {},
): { limit: number; after: string | undefined } {
  assertBlobPrefix(prefix);
  const limit = options.limit ?? BLOB_LIST_MAX_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > BLOB_LIST_MAX_LIMIT) {
    throw new UserInputError(`invalid limit ${String(limit)}: use a whole number from 1 to ${BLOB_LIST_MAX_LIMIT}`);
  }
  if (options.cursor === undefined) return { limit, after: undefined };
  const [after] = decodeCursor(options.cursor, ['string']) as [string];
  if (!isBlobKey(after) || !after.startsWith(prefix)) {
    throw new UserInputError('invalid cursor: pass back the nextCursor value of the previous page of the same prefix');
  }
  return { limit, after };
}

export function blobCursor(lastKey: string): string {
  return encodeCursor([lastKey]);
}

/** Every blob under a prefix, page by page: garbage collection walks chunks this way. */
export async function* listAllBlobs(store: BlobStore, prefix: string, pageSize = BLOB_LIST_MAX_LIMIT): AsyncGenerator<BlobInfo> {
  let cursor: string | undefined;
  do {
    const page = await store.list(prefix, cursor === undefined ? { limit: pageSize } : { limit: pageSize, cursor });
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}

function show(value: unknown): string {
  if (typeof value !== 'string') return typeof value;
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}
