// One process at a time owns a standalone data directory: PGlite is a single-process database
// and two writers would corrupt it. The owner records itself in <data dir>/errata.lock; a
// server also records the admin socket through which the CLI reaches it while it runs. A lock
// whose process is gone (kill -9) is stale and taken over; a recycled pid is told apart from
// the original owner by the process start time, and a lock naming this very pid (a container
// whose new process got the pid of the killed one) is stale unless this process holds it.
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockHolder {
  pid: number;
  /** The holder's start time as the kernel reports it (/proc/<pid>/stat), when known. */
  processStart?: string;
  kind: 'server' | 'cli';
  /** The admin socket of a running server. */
  socket?: string;
  startedAt: string;
}

interface InstanceLock {
  release(): Promise<void>;
}

export class InstanceLockedError extends Error {
  constructor(readonly holder: LockHolder) {
    super(
      holder.kind === 'server'
        ? `another Errata server (pid ${holder.pid}) is using this data directory: stop it first, or set ERRATA_DATA_DIR`
        : `an errata command (pid ${holder.pid}) is using this data directory: wait for it to finish`,
    );
  }
}

const LOCK_FILE = 'errata.lock';
/** Lock files this process holds. */
const held = new Set<string>();

export async function acquireInstanceLock(
  dataDir: string,
  holder: Omit<LockHolder, 'pid' | 'startedAt' | 'processStart'>,
  options: {
    waitMs?: number;
    /** Which live holders are worth waiting for (all by default); another is refused at once. */
    waitFor?: (holder: LockHolder) => boolean;
  } = {},
): Promise<InstanceLock> {
  const path = join(dataDir, LOCK_FILE);
  const record: LockHolder = {
    ...holder,
    pid: process.pid,
    processStart: processStart(process.pid),
    startedAt: new Date().toISOString(),
  };
  const deadline = Date.now() + (options.waitMs ?? 0);
  for (;;) {
    if (await tryCreate(path, record)) {
      held.add(path);
      return {
        async release() {
          held.delete(path);
          const now = await readLock(path);
          if (isSameLock(now, { state: 'held', holder: record })) await rm(path, { force: true });
        },
      };
    }
    const current = await readLock(path);
    // Gone between our attempt and this read: someone released it or took it over; try again.
    if (current.state === 'absent') continue;
    if (current.state === 'held' && isLive(current.holder, path)) {
      if (Date.now() >= deadline || options.waitFor?.(current.holder) === false) {
        throw new InstanceLockedError(current.holder);
      }
      await sleep(100);
      continue;
    }
    await takeOver(path, current);
  }
}

/** The live holder of the data directory, if any. */
export async function currentHolder(dataDir: string): Promise<LockHolder | undefined> {
  const path = join(dataDir, LOCK_FILE);
  const holder = await readHolder(path);
  return holder && isLive(holder, path) ? holder : undefined;
}

/** The holder the lock records, live or not: a server killed with -9 leaves its record behind. */
export async function recordedHolder(dataDir: string): Promise<{ holder: LockHolder; live: boolean } | undefined> {
  const path = join(dataDir, LOCK_FILE);
  const holder = await readHolder(path);
  return holder && { holder, live: isLive(holder, path) };
}

/** Written aside, then linked into place: link() fails if the lock exists, atomically. */
async function tryCreate(path: string, record: LockHolder): Promise<boolean> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(record));
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await rm(temporary, { force: true });
  }
}

/**
 * Removes a stale (or unreadable) lock. Contenders that judged the same lock stale race for a
 * claim file named after it; only the winner removes the lock, and only if it still is that
 * lock — so a fresh lock taken meanwhile by another contender is never removed. A lock that is
 * absent is never a target: a contender that saw it absent could otherwise remove the lock
 * another contender created a moment later (two winners, seen in CI).
 */
async function takeOver(path: string, stale: StaleLock): Promise<void> {
  const claim = `${path}.takeover-${stale.state === 'held' ? `${stale.holder.pid}-${stale.holder.startedAt.replace(/[^0-9]/g, '')}` : 'unreadable'}`;
  const claimer: LockHolder = {
    kind: 'cli',
    pid: process.pid,
    processStart: processStart(process.pid),
    startedAt: new Date().toISOString(),
  };
  try {
    await writeFile(claim, JSON.stringify(claimer), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Someone else is taking it over; if that someone died doing so, clear their claim.
    const other = await readLock(claim);
    if (other.state === 'held' && !isLive(other.holder, claim)) await rm(claim, { force: true });
    await sleep(20);
    return;
  }
  try {
    if (isSameLock(await readLock(path), stale)) {
      const aside = `${path}.stale.${process.pid}`;
      await rename(path, aside).catch(() => undefined);
      await rm(aside, { force: true });
    }
  } finally {
    await rm(claim, { force: true });
  }
}

type LockState = { state: 'held'; holder: LockHolder } | { state: 'unreadable' } | { state: 'absent' };
type StaleLock = Exclude<LockState, { state: 'absent' }>;

async function readLock(path: string): Promise<LockState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    throw error;
  }
  try {
    return { state: 'held', holder: JSON.parse(text) as LockHolder };
  } catch {
    return { state: 'unreadable' };
  }
}

async function readHolder(path: string): Promise<LockHolder | undefined> {
  const lock = await readLock(path);
  return lock.state === 'held' ? lock.holder : undefined;
}

/** Whether the lock now on disk is still the stale one a contender judged; never when absent. */
export function isSameLock(now: LockState, stale: StaleLock): boolean {
  if (now.state === 'held' && stale.state === 'held') {
    return now.holder.pid === stale.holder.pid && now.holder.startedAt === stale.holder.startedAt;
  }
  return now.state === 'unreadable' && stale.state === 'unreadable';
}

/** Whether the process that wrote the record still runs (and is the same process). */
function isLive(holder: LockHolder, path: string): boolean {
  if (holder.pid === process.pid) return held.has(path);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStart(holder.pid);
  return holder.processStart === undefined || start === undefined || start === holder.processStart;
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
