// One process at a time owns a standalone data directory: PGlite is a single-process database
// and two writers would corrupt it. The owner records itself in <data dir>/errata.lock; a
// server also records the admin socket through which the CLI reaches it while it runs. A lock
// whose process is gone (kill -9) is stale and taken over; a recycled pid is told apart from
// the original owner by the process start time, and a lock naming this very pid (a container
// whose new process got the pid of the killed one) is stale unless this process holds it.
// A pid means nothing outside its own pid namespace: two containers sharing a volume are both
// pid 1. So the owner also records its namespace and touches the lock every few seconds; a lock
// from another namespace (another container or machine) is live while it was touched lately.
import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface LockHolder {
  pid: number;
  /** The holder's start time as the kernel reports it (/proc/<pid>/stat), when known. */
  processStart?: string;
  kind: 'server' | 'cli';
  /** The admin socket of a running server. */
  socket?: string;
  startedAt: string;
  /** The machine's boot id and the pid namespace the pid belongs to, when known (Linux). */
  namespace?: string;
}

/** How often a holder touches its lock, and how long after the last touch a lock from another namespace is stale. */
const HEARTBEAT_MS = 3_000;
export const FOREIGN_STALE_MS = 20_000;

interface InstanceLock {
  release(): Promise<void>;
}

export class InstanceLockedError extends Error {
  constructor(readonly holder: LockHolder) {
    const where = inOtherNamespace(holder) ? ' in another container or on another machine' : '';
    super(
      holder.kind === 'server'
        ? `another Errata server (pid ${holder.pid}${where}) is using this data directory: stop it first, or set ERRATA_DATA_DIR`
        : `an errata command (pid ${holder.pid}${where}) is using this data directory: wait for it to finish`,
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
    /** How often the lock is touched while held (tests shorten it). */
    heartbeatMs?: number;
  } = {},
): Promise<InstanceLock> {
  const path = join(dataDir, LOCK_FILE);
  const record: LockHolder = { ...holder, ...ownIdentity() };
  const deadline = Date.now() + (options.waitMs ?? 0);
  for (;;) {
    if (await tryCreate(path, record)) {
      held.add(path);
      const heartbeat = setInterval(() => void touch(path, record), options.heartbeatMs ?? HEARTBEAT_MS).unref();
      return {
        async release() {
          clearInterval(heartbeat);
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

/** This process as a lock records it. */
function ownIdentity(): Pick<LockHolder, 'pid' | 'processStart' | 'startedAt' | 'namespace'> {
  const namespace = ownNamespace();
  return {
    pid: process.pid,
    processStart: processStart(process.pid),
    startedAt: new Date().toISOString(),
    ...(namespace ? { namespace } : {}),
  };
}

let namespaceOfThisProcess: string | null | undefined;
/** "<boot id>/<pid namespace>": containers on one machine share the boot id, not the namespace. */
function ownNamespace(): string | undefined {
  if (namespaceOfThisProcess === undefined) {
    try {
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      namespaceOfThisProcess = `${boot}/${readlinkSync('/proc/self/ns/pid')}`;
    } catch {
      namespaceOfThisProcess = null;
    }
  }
  return namespaceOfThisProcess ?? undefined;
}

/** A holder whose pid this process cannot look up: one from another container or machine. */
export function inOtherNamespace(holder: LockHolder): boolean {
  const own = ownNamespace();
  return holder.namespace !== undefined && own !== undefined && holder.namespace !== own;
}

/** Marks the lock as alive, if it is still this holder's. */
async function touch(path: string, record: LockHolder): Promise<void> {
  try {
    if (!isSameLock(await readLock(path), { state: 'held', holder: record })) return;
    const now = new Date();
    await utimes(path, now, now);
  } catch {
    // A missed touch is made good by the next; only FOREIGN_STALE_MS of them in a row matter.
  }
}

/** Written aside, then linked into place: link() fails if the lock exists, atomically. */
async function tryCreate(path: string, record: LockHolder): Promise<boolean> {
  // Random too: two containers' processes can share a pid (both 1) and a volume.
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
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
  const claimer: LockHolder = { kind: 'cli', ...ownIdentity() };
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

/**
 * Whether the process that wrote the record still runs (and is the same process). One in another
 * namespace cannot be looked up: it is live while it touched the file within FOREIGN_STALE_MS.
 */
function isLive(holder: LockHolder, path: string): boolean {
  if (inOtherNamespace(holder)) {
    try {
      return Date.now() - statSync(path).mtimeMs < FOREIGN_STALE_MS;
    } catch {
      return false;
    }
  }
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
