// The admin socket of a running standalone server: HTTP over a Unix socket inside the data
// directory (mode 0600; in a private directory of the temp dir when that path is too long), so
// only the owner of the data can use it and nothing listens on the network. `POST /<operation>`
// with JSON arguments runs an admin operation in the server.
import { chmod, lstat, mkdtemp, rm, rmdir } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ErrataError, UnavailableError, UserInputError } from '../../core/errors.ts';
import { ConfigError } from '../config.ts';
import { closeServer, trackConnections } from '../graceful-close.ts';
import type { Logger } from '../logger.ts';
import { runAdminOperation, type AdminContext } from './operations.ts';

/**
 * The largest request: well above the largest operation's input (two grouping rule texts of 32 K
 * characters each, up to six bytes a character once written as JSON).
 */
const MAX_REQUEST = 1024 * 1024;

/** Socket paths from this many bytes on are too long for every platform we run on (Linux: 108). */
const MAX_SOCKET_PATH = 100;
/** mkdtemp's name for the fallback directory: the prefix and six random characters. */
const FALLBACK_PREFIX = 'errata-';
const FALLBACK_NAME = /^errata-[A-Za-z0-9]{6}$/;

interface AdminSocketPlace {
  path: string;
  /** Removes the fallback directory (the socket itself goes when the server closes it). */
  remove(): Promise<void>;
}

/**
 * Inside the data directory unless that path is too long for a Unix socket; then in a new
 * directory under the temporary directory, made by mkdtemp, so mode 0700 with a name nobody can
 * guess: a name worked out from the data directory could be made first by another user, which
 * kept Errata from starting. The CLI finds the socket through the instance lock, which records
 * its path; the directory goes at shutdown, or at the next start after a crash.
 */
export async function adminSocketPlace(dataDir: string, tempDir: string = tmpdir()): Promise<AdminSocketPlace> {
  const inside = join(dataDir, 'errata.sock');
  if (Buffer.byteLength(inside) < MAX_SOCKET_PATH) return { path: inside, remove: async () => {} };
  const dir = await mkdtemp(join(tempDir, FALLBACK_PREFIX));
  const path = join(dir, 'admin.sock');
  if (Buffer.byteLength(path) >= MAX_SOCKET_PATH) {
    await rmdir(dir);
    throw new ConfigError(
      `the admin socket's path ${path} is too long for a Unix socket: set ERRATA_DATA_DIR to a path of at most ` +
        `${MAX_SOCKET_PATH - 1 - '/errata.sock'.length} bytes, or TMPDIR to a shorter directory`,
    );
  }
  return { path, remove: () => removeFallbackDirectory(path) };
}

/**
 * Removes the fallback directory of a server's socket (one that stopped, or was killed and left
 * it behind): only a directory of mkdtemp's naming, not a link, ours, closed to others, and only
 * the socket in it. A socket inside the data directory is left to startAdminSocket.
 */
export async function removeFallbackDirectory(socketPath: string): Promise<void> {
  const dir = dirname(socketPath);
  if (basename(socketPath) !== 'admin.sock' || !FALLBACK_NAME.test(basename(dir))) return;
  const info = await lstat(dir).catch(() => undefined);
  const uid = process.getuid?.();
  if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o077) !== 0) return;
  await rm(socketPath, { force: true });
  await rmdir(dir).catch(() => undefined); // something else in it: not ours to remove
}

/**
 * How long a closing server waits for the operations under way. One already applied but cut off
 * unanswered made the command fail though it had run: a token minted whose plaintext was never
 * shown, and "already exists" on the retry.
 */
const CLOSE_WAIT_MS = 10_000;

export async function startAdminSocket(path: string, ctx: AdminContext, logger: Logger): Promise<{ close(): Promise<void> }> {
  await rm(path, { force: true });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST) chunks.push(chunk);
    });
    req.on('end', async () => {
      const operation = (req.url ?? '/').slice(1);
      let status = 200;
      let body: unknown;
      try {
        if (size > MAX_REQUEST) {
          throw new UserInputError(`the request is ${size} bytes; the admin socket takes at most ${MAX_REQUEST}`);
        }
        body = await runAdminOperation(ctx, operation, size > 0 ? parseInput(Buffer.concat(chunks)) : {});
        logger.info({ operation }, 'admin operation');
      } catch (error) {
        status = error instanceof ErrataError ? 400 : 500;
        body = {
          error:
            error instanceof ErrataError
              ? { code: error.code, message: error.message }
              : { code: 'internal', message: 'internal error: see the server log' },
        };
        if (status === 500) logger.error({ err: error, operation }, 'admin operation failed');
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  trackConnections(server);
  // Created owner-only from the start (no window in which the umask's mode applies).
  const umask = process.umask(0o077);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, resolve);
    });
  } finally {
    process.umask(umask);
  }
  await chmod(path, 0o600);
  return {
    close: async () => {
      await closeServer(server, CLOSE_WAIT_MS);
      await rm(path, { force: true });
    },
  };
}

/** Runs an admin operation in the server listening on `path`. */
export function callAdminSocket(path: string, operation: string, input: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: path, method: 'POST', path: `/${operation}`, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code: string; message: string } };
            if (res.statusCode === 200) resolve(body);
            else reject(new RemoteAdminError(body.error?.code ?? 'internal', body.error?.message ?? 'the server refused'));
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new AdminSocketError(
          'the running server did not answer on its admin socket: is it starting or stopping?',
          error.code === 'ENOENT' || error.code === 'ECONNREFUSED',
        ),
      ),
    );
    req.end(JSON.stringify(input));
  });
}

function parseInput(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new UserInputError("the request is not JSON: send the operation's arguments as one JSON object");
  }
}

/** The admin socket failed the call. `notListening`: nothing was sent (no socket yet, or nobody accepting on it), so calling again is safe. */
export class AdminSocketError extends UnavailableError {
  constructor(
    message: string,
    readonly notListening: boolean,
  ) {
    super(message);
  }
}

/** An error the server reported; carries its message through to the CLI unchanged. */
class RemoteAdminError extends ErrataError {
  constructor(code: string, message: string) {
    super((code as ErrataError['code']) ?? 'invalid_input', message);
  }
}
