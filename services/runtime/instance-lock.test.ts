import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireInstanceLock, currentHolder, InstanceLockedError } from './instance-lock.ts';

const dirs: string[] = [];
async function dir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'errata-lock-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('instance lock', () => {
  it('is held by one owner at a time and released', async () => {
    const d = await dir();
    const lock = await acquireInstanceLock(d, { kind: 'server', socket: '/tmp/s.sock' });
    expect(await currentHolder(d)).toMatchObject({ pid: process.pid, kind: 'server', socket: '/tmp/s.sock' });
    await lock.release();
    expect(await currentHolder(d)).toBeUndefined();
  });

  it('refuses a second owner while a live process holds it', async () => {
    const d = await dir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await writeFile(join(d, 'errata.lock'), JSON.stringify({ pid: child.pid, kind: 'server', startedAt: '' }));
      const attempt = acquireInstanceLock(d, { kind: 'cli' });
      await expect(attempt).rejects.toBeInstanceOf(InstanceLockedError);
      await expect(acquireInstanceLock(d, { kind: 'cli' })).rejects.toThrow(/another Errata server \(pid \d+\)/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over the lock of a process that died without releasing it', async () => {
    const d = await dir();
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.on('exit', resolve));
    await writeFile(join(d, 'errata.lock'), JSON.stringify({ pid: child.pid, kind: 'server', startedAt: '' }));
    const lock = await acquireInstanceLock(d, { kind: 'server' });
    expect(JSON.parse(await readFile(join(d, 'errata.lock'), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('waits for a short-lived holder when asked to', async () => {
    const d = await dir();
    const first = await acquireInstanceLock(d, { kind: 'cli' });
    setTimeout(() => void first.release(), 200);
    const second = await acquireInstanceLock(d, { kind: 'cli' }, { waitMs: 5000 });
    await second.release();
  });
});
