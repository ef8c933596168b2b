import { createHash } from 'node:crypto';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { missingSecretBox } from '../../core/alerts/secret-box.ts';
import { createLogger } from '../logger.ts';
import { adminSocketPlace, callAdminSocket, removeFallbackDirectory, startAdminSocket } from './socket.ts';

const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** An admin socket on fresh embedded stores, in a directory of its own; closed after the tests (closing twice is harmless). */
async function openSocket(): Promise<{ path: string; socket: { close(): Promise<void> } }> {
  const dir = await mkdtemp(join(tmpdir(), 'errata-sock-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const stores: EmbeddedStores = await openEmbeddedStores();
  cleanup.push(() => stores.close());
  await stores.metadata.ensureOrganization('default', 'Default');
  const { path } = await adminSocketPlace(dir);
  const socket = await startAdminSocket(
    path,
    {
      metadata: stores.metadata,
      users: stores.users,
      alerts: stores.alerts,
      secrets: missingSecretBox(),
      baseUrl: 'http://localhost:8000',
      webhookAllowHosts: [],
    },
    createLogger('silent'),
  );
  cleanup.push(() => socket.close());
  return { path, socket };
}

describe('admin socket', () => {
  it('is created owner-only, and answers admin operations', async () => {
    const previous = process.umask(0o000);
    let path;
    try {
      ({ path } = await openSocket());
    } finally {
      process.umask(previous);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const created = (await callAdminSocket(path, 'createproject', { name: 'Sock' })) as { dsn: string };
    expect(created.dsn).toMatch(/^http:\/\/[0-9a-f]{32}@localhost:8000\/\d+$/);
    await expect(callAdminSocket(path, 'createproject', { name: 'Sock' })).rejects.toThrow(/already exists/);

    // Rules of 32 K characters each, two bytes apiece in UTF-8: 128 KB, which was cut at 64 KiB
    // and answered "internal error", while the same command without a server succeeded.
    const rules = `message:"${'é'.repeat(30_000)}" -> x`;
    await expect(
      callAdminSocket(path, 'setgroupingrules', { project: 'sock', fingerprintRules: rules, stackTraceRules: '' }),
    ).rejects.toThrow(/the value after "message:" has 30000 characters; at most 1024 are allowed/);
    await expect(callAdminSocket(path, 'listdeliveries', { id: 1, limit: 500 })).rejects.toThrow(
      /^invalid arguments for listdeliveries: --limit: Too big: expected number to be <=200$/,
    );
    await expect(callAdminSocket(path, 'deletesourcemaps', { project: 'sock', debugId: 'x'.repeat(101) })).rejects.toThrow(
      /^invalid arguments for deletesourcemaps: --debug-id: /,
    );
    await expect(callAdminSocket(path, 'createproject', { name: 'x'.repeat(2 * 1024 * 1024) })).rejects.toThrow(
      /^the request is \d+ bytes; the admin socket takes at most 1048576$/,
    );
  });

  it('answers an operation under way when it closes, then closes', async () => {
    const { path, socket } = await openSocket();
    // A request under way (its body half sent) as the server stops: it was cut off unanswered.
    const body = JSON.stringify({ name: 'Stopping' });
    const answer = new Promise<{ status: number | undefined; text: string }>((resolve, reject) => {
      const req = request(
        { socketPath: path, method: 'POST', path: '/createproject', headers: { 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => req.end(body.slice(5)), 300);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = socket.close();
    const { status, text } = await answer;
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ project: { slug: 'stopping' } });
    await closed;
    await expect(callAdminSocket(path, 'listprojects', {})).rejects.toMatchObject({ notListening: true });
  });

  describe('with a data directory path too long for a socket', () => {
    // A temp directory of its own stands for /tmp, so that each case starts clean.
    async function temp() {
      const dir = await mkdtemp(join(tmpdir(), 'errata-socktmp-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      return { dir, dataDir: join(dir, 'd'.repeat(120)) };
    }

    it('puts the socket in a new private directory of the temp dir, named so that nobody can make it first', async () => {
      const { dir, dataDir } = await temp();
      // Where the socket used to go, worked out from the data directory: made first by someone else.
      const predictable = join(
        dir,
        `errata-${process.getuid?.()}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`,
      );
      await mkdir(predictable);
      await chmod(predictable, 0o777);
      const first = await adminSocketPlace(dataDir, dir);
      const second = await adminSocketPlace(dataDir, dir);
      for (const place of [first, second]) {
        expect(Buffer.byteLength(place.path)).toBeLessThan(100);
        expect(dirname(dirname(place.path))).toBe(dir);
        expect(basename(dirname(place.path))).toMatch(/^errata-[A-Za-z0-9]{6}$/);
        expect((await lstat(dirname(place.path))).mode & 0o777).toBe(0o700);
      }
      expect(first.path).not.toBe(second.path);
      await first.remove();
      await second.remove();
      expect(await readdir(dir)).toEqual([basename(predictable)]);
    });

    it('removes only a socket directory of its own making: of its naming, ours, closed to others, not a link', async () => {
      const { dir } = await temp();
      const open = join(dir, 'errata-AbC123');
      await mkdir(open);
      await chmod(open, 0o755);
      await writeFile(join(open, 'admin.sock'), '');
      const target = join(dir, 'target');
      await mkdir(target, { mode: 0o700 });
      await writeFile(join(target, 'admin.sock'), '');
      await symlink(target, join(dir, 'errata-XyZ789'));
      const otherName = join(dir, 'errata-sockets');
      await mkdir(otherName, { mode: 0o700 });
      await writeFile(join(otherName, 'admin.sock'), '');
      const candidates = [open, join(dir, 'errata-XyZ789'), otherName];
      if (process.getuid?.() === 0) {
        // As root: another user's directory (a socket there would be theirs to replace).
        const theirs = join(dir, 'errata-Th31rs');
        await mkdir(theirs, { mode: 0o700 });
        await writeFile(join(theirs, 'admin.sock'), '');
        await chown(theirs, 65534, 65534);
        candidates.push(theirs);
      }
      for (const socket of candidates.map((d) => join(d, 'admin.sock'))) {
        await removeFallbackDirectory(socket);
        expect((await lstat(socket)).isFile()).toBe(true);
      }
    });
  });
});
