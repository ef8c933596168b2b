// The admin socket of a running standalone server: HTTP over a Unix socket inside the data
// directory (mode 0600), so only the owner of the data can use it and nothing listens on the
// network. `POST /<operation>` with JSON arguments runs an admin operation in the server.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { chmod, lstat, mkdir, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrataError, UnavailableError } from '../../core/errors.ts';
import { ConfigError } from '../config.ts';
import type { Logger } from '../logger.ts';
import { runAdminOperation, type AdminContext } from './operations.ts';

const MAX_REQUEST = 64 * 1024;

/**
 * Inside the data directory unless that path is too long for a Unix socket; then in a
 * directory of its own under the temporary directory, named after the user and the data
 * directory so that every start finds the same one (the CLI reads the path from the instance
 * lock). That name is predictable, so another user may have made it first: it is created
 * without `recursive` (which accepts whatever exists) and used only if lstat shows a real
 * directory, not a link, that this user owns and nobody else may enter.
 */
export async function adminSocketPath(dataDir: string, tempDir: string = tmpdir()): Promise<string> {
  const inside = join(dataDir, 'errata.sock');
  if (Buffer.byteLength(inside) < 100) return inside;
  const uid = process.getuid?.();
  const dir = join(tempDir, `errata-${uid ?? 'user'}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const info = await lstat(dir);
  const ours = info.isDirectory() && (uid === undefined || info.uid === uid) && (info.mode & 0o077) === 0;
  if (!ours) {
    throw new ConfigError(
      `the admin socket's directory ${dir} is not a private directory of this user (it is ${describe(info)}), so another user may control it: ` +
        'remove it, or set ERRATA_DATA_DIR to a path of at most 87 bytes so that the socket lives in the data directory',
    );
  }
  return join(dir, 'admin.sock');
}

function describe(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (!info.isDirectory()) return 'not a directory';
  return `owned by uid ${info.uid}, mode ${(info.mode & 0o777).toString(8)}`;
}

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
        const input = size > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : {};
        body = await runAdminOperation(ctx, operation, input);
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => rm(path, { force: true })),
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
    req.on('error', () =>
      reject(new UnavailableError('the running server did not answer on its admin socket: is it starting or stopping?')),
    );
    req.end(JSON.stringify(input));
  });
}

/** An error the server reported; carries its message through to the CLI unchanged. */
export class RemoteAdminError extends ErrataError {
  constructor(code: string, message: string) {
    super((code as ErrataError['code']) ?? 'invalid_input', message);
  }
}
