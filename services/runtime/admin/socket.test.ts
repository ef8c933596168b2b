import { chmod, chown, mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { missingSecretBox } from '../../core/alerts/secret-box.ts';
import { createLogger } from '../logger.ts';
import { adminSocketPath, callAdminSocket, startAdminSocket } from './socket.ts';

const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

describe('admin socket', () => {
  it('is created owner-only, and answers admin operations', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'errata-sock-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const stores: EmbeddedStores = await openEmbeddedStores();
    cleanup.push(() => stores.close());
    await stores.metadata.ensureOrganization('default', 'Default');
    const path = await adminSocketPath(dir);
    const previous = process.umask(0o000);
    let socket;
    try {
      socket = await startAdminSocket(
        path,
        {
          metadata: stores.metadata,
          alerts: stores.alerts,
          secrets: missingSecretBox(),
          baseUrl: 'http://localhost:8000',
          webhookAllowHosts: [],
        },
        createLogger('silent'),
      );
    } finally {
      process.umask(previous);
    }
    cleanup.push(() => socket.close());
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const created = (await callAdminSocket(path, 'createproject', { name: 'Sock' })) as { dsn: string };
    expect(created.dsn).toMatch(/^http:\/\/[0-9a-f]{32}@localhost:8000\/\d+$/);
    await expect(callAdminSocket(path, 'createproject', { name: 'Sock' })).rejects.toThrow(/already exists/);
  });

  it('falls back to a private directory when the data directory path is too long for a socket', async () => {
    const long = join(tmpdir(), 'x'.repeat(120));
    const path = await adminSocketPath(long);
    expect(Buffer.byteLength(path)).toBeLessThan(100);
    expect((await stat(dirname(path))).mode & 0o777).toBe(0o700);
    expect(await adminSocketPath(long)).toBe(path);
  });

  describe('refuses a fallback directory someone else prepared at its predictable path', () => {
    // A temp directory of its own stands for /tmp, so that each case starts clean.
    async function prepared(make: (dir: string) => Promise<void>) {
      const temp = await mkdtemp(join(tmpdir(), 'errata-socktmp-'));
      cleanup.push(() => rm(temp, { recursive: true, force: true }));
      const dataDir = join(temp, 'd'.repeat(120));
      const fallback = dirname(await adminSocketPath(dataDir, temp));
      await rm(fallback, { recursive: true });
      await make(fallback);
      return { dataDir, temp, fallback };
    }

    it('open to others', async () => {
      const { dataDir, temp, fallback } = await prepared(async (dir) => {
        await mkdir(dir);
        await chmod(dir, 0o777);
      });
      await expect(adminSocketPath(dataDir, temp)).rejects.toThrow(`${fallback} is not a private directory`);
      expect((await stat(fallback)).mode & 0o777).toBe(0o777);
    });

    it('a symbolic link, even to a private directory of ours', async () => {
      const target = await mkdtemp(join(tmpdir(), 'errata-socktarget-'));
      cleanup.push(() => rm(target, { recursive: true, force: true }));
      const { dataDir, temp, fallback } = await prepared((dir) => symlink(target, dir));
      await expect(adminSocketPath(dataDir, temp)).rejects.toThrow(`${fallback} is not a private directory`);
    });

    it.runIf(process.getuid?.() === 0)('owned by another user (as root, a socket there would be theirs to replace)', async () => {
      const { dataDir, temp, fallback } = await prepared(async (dir) => {
        await mkdir(dir, { mode: 0o700 });
        await chown(dir, 65534, 65534);
      });
      await expect(adminSocketPath(dataDir, temp)).rejects.toThrow(`${fallback} is not a private directory`);
    });
  });
});
