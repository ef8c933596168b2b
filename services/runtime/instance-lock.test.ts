import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runProcess } from '../../test/support/standalone-server.ts';
import {
  acquireInstanceLock,
  currentHolder,
  FOREIGN_STALE_MS,
  InstanceLockedError,
  isSameLock,
  processStart,
} from './instance-lock.ts';

const dirs: string[] = [];
async function dir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'errata-lock-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const lockFile = (d: string) => join(d, 'errata.lock');
const record = (pid: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ pid, kind: 'server', startedAt: '2026-01-01T00:00:00.000Z', ...extra });

describe('instance lock', () => {
  it('is held by one owner at a time and released', async () => {
    const d = await dir();
    const lock = await acquireInstanceLock(d, { kind: 'server', socket: '/tmp/s.sock' });
    expect(await currentHolder(d)).toMatchObject({ pid: process.pid, kind: 'server', socket: '/tmp/s.sock' });
    await expect(acquireInstanceLock(d, { kind: 'cli' })).rejects.toBeInstanceOf(InstanceLockedError);
    await lock.release();
    expect(await currentHolder(d)).toBeUndefined();
  });

  it('refuses a second owner while a live process holds it', async () => {
    const d = await dir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      await writeFile(lockFile(d), record(child.pid!, { processStart: processStart(child.pid!) }));
      await expect(acquireInstanceLock(d, { kind: 'cli' })).rejects.toThrow(/another Errata server \(pid \d+\)/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over the lock of a process that died without releasing it', async () => {
    const d = await dir();
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.on('exit', resolve));
    await writeFile(lockFile(d), record(child.pid!));
    const lock = await acquireInstanceLock(d, { kind: 'server' });
    expect(JSON.parse(await readFile(lockFile(d), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over a lock naming its own pid, as after kill -9 in a container that reuses the pid', async () => {
    const d = await dir();
    await writeFile(lockFile(d), record(process.pid));
    const lock = await acquireInstanceLock(d, { kind: 'server' });
    await lock.release();
  });

  it('takes over a lock whose pid now belongs to another process', async () => {
    const d = await dir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((r) => setTimeout(r, 100));
      await writeFile(lockFile(d), record(child.pid!, { processStart: '1' }));
      const lock = await acquireInstanceLock(d, { kind: 'server' });
      await lock.release();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('lets exactly one of many processes take over a stale lock', async () => {
    const d = await dir();
    await writeFile(lockFile(d), record(2 ** 22 + 12345));
    const script = join(d, 'contend.mts');
    await writeFile(
      script,
      `import { acquireInstanceLock } from ${JSON.stringify(join(REPO_ROOT, 'services/runtime/instance-lock.ts'))};
       try { await acquireInstanceLock(${JSON.stringify(d)}, { kind: 'cli' }); console.log('won'); await new Promise((r) => setTimeout(r, 3000)); }
       catch { console.log('lost'); }`,
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, () => runProcess(process.execPath, [join(REPO_ROOT, 'bin', 'run-ts.js'), script])),
    );
    expect(results.map((r) => r.stdout.trim()).sort()).toEqual(['lost', 'lost', 'lost', 'lost', 'lost', 'won']);
  });

  it('never takes a lock that is absent for the unreadable one it judged stale', () => {
    // A contender that found the lock unreadable, or found it gone, must not remove whatever
    // lock is there by the time it acts: another contender may have just created it. The
    // absent case once made two winners in CI.
    const holder = { pid: 1, kind: 'cli' as const, startedAt: '2026-01-01T00:00:00.000Z' };
    expect(isSameLock({ state: 'absent' }, { state: 'unreadable' })).toBe(false);
    expect(isSameLock({ state: 'held', holder }, { state: 'unreadable' })).toBe(false);
    expect(isSameLock({ state: 'unreadable' }, { state: 'unreadable' })).toBe(true);
    expect(isSameLock({ state: 'held', holder }, { state: 'held', holder: { ...holder } })).toBe(true);
    expect(isSameLock({ state: 'held', holder: { ...holder, startedAt: 'later' } }, { state: 'held', holder })).toBe(false);
  });

  it('takes over a lock file that is not a lock record', async () => {
    const d = await dir();
    await writeFile(lockFile(d), 'not json');
    const lock = await acquireInstanceLock(d, { kind: 'server' });
    expect(JSON.parse(await readFile(lockFile(d), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('waits for a short-lived holder when asked to', async () => {
    const d = await dir();
    const first = await acquireInstanceLock(d, { kind: 'cli' });
    setTimeout(() => void first.release(), 200);
    const second = await acquireInstanceLock(d, { kind: 'cli' }, { waitMs: 5000 });
    await second.release();
  });

  it('keeps a lock from another pid namespace while its holder touches it, and takes it over once it stops', async () => {
    const d = await dir();
    // Another container on a shared volume: pid 1 there may be this very pid here, or any other.
    const foreign = { namespace: 'another-boot/pid:[1]' };
    for (const pid of [process.pid, 1]) {
      await writeFile(lockFile(d), record(pid, foreign));
      await expect(acquireInstanceLock(d, { kind: 'server' })).rejects.toThrow(
        /another Errata server \(pid \d+ in another container or on another machine\)/,
      );
      expect(await currentHolder(d)).toMatchObject({ pid });
    }
    // Last touched longer ago than a holder's heartbeat allows: its holder is gone.
    const past = new Date(Date.now() - FOREIGN_STALE_MS - 1000);
    await utimes(lockFile(d), past, past);
    expect(await currentHolder(d)).toBeUndefined();
    const lock = await acquireInstanceLock(d, { kind: 'server' }, { heartbeatMs: 50 });
    const taken = JSON.parse(await readFile(lockFile(d), 'utf8')) as { pid: number; namespace?: string };
    expect(taken.pid).toBe(process.pid);
    expect(taken.namespace).toMatch(/^[0-9a-f-]{36}\/pid:\[\d+\]$/);
    // The holder touches its lock, so that another namespace sees it alive.
    await utimes(lockFile(d), past, past);
    await new Promise((r) => setTimeout(r, 300));
    expect(Date.now() - (await stat(lockFile(d))).mtimeMs).toBeLessThan(FOREIGN_STALE_MS);
    await lock.release();
  });

  it('waits only for the holders asked for, refusing another at once', async () => {
    const d = await dir();
    const server = await acquireInstanceLock(d, { kind: 'server', socket: '/tmp/s.sock' });
    // Ten minutes of waiting would outlast the test's own time limit.
    await expect(
      acquireInstanceLock(d, { kind: 'cli' }, { waitMs: 600_000, waitFor: (holder) => holder.kind === 'cli' }),
    ).rejects.toMatchObject({ holder: { kind: 'server' } });
    await server.release();
  });
});
