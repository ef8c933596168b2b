// The live tail's loop behind /logs/live/stream: about once a second it reads the LogStore (the
// port, so the same code tails PGlite standalone and ClickHouse distributed) for records not shown
// yet (core/logs/tail-window.ts) and writes each as a Server-Sent Event; core/logs/tail-guard.ts
// decides when it pauses or stops. `stop()` (the client went away) ends it with no timer left.
import { TAIL_LIMITS, TailGuard, type TailLimits, type TailVerdict } from '../../core/logs/tail-guard.ts';
import { TailWindow } from '../../core/logs/tail-window.ts';
import { cutText } from '../../core/storable-text.ts';
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { LogQuery, LogStore } from '../../core/ports/log-store.ts';

type TailQuery = Pick<LogQuery, 'projectId' | 'levels' | 'text' | 'traceId'>;

interface TailOptions {
  logs: LogStore;
  query: TailQuery;
  /** Where the events go: the response body. */
  write(chunk: string): void;
  /** The tail ended by itself (paused, stopped, failed): end the response. */
  end(): void;
  /** Bytes written that the client has not taken yet. */
  unread?(): number;
  /** The client stopped reading: drop the connection, and what waits for it. */
  abandon?(): void;
  /**
   * Whether the person may still read these logs (their session live, their role still one that
   * reads), asked every SESSION_CHECK_MS. Without it, a tail opened before signing out, or before
   * an owner removed the person, went on streaming for the rest of its ten minutes.
   */
  stillAllowed?(): Promise<boolean>;
  now?: () => number;
  /** Where the next poll is scheduled: setTimeout unless a test steps through the polls itself. */
  timers?: TailTimers;
  pollMs?: number;
  limits?: TailLimits;
}

export interface TailTimers {
  set(poll: () => Promise<void>, ms: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: TailTimers = {
  set: (poll, ms) => setTimeout(() => void poll(), ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const POLL_MS = 1000;
/** Records read per store query; a poll reads pages until it has them all or enough to pause. */
const PAGE_SIZE = 500;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/** A record's body is cut here: a row in a live view, not the record (the Logs page has it whole). */
const MAX_BODY = 2000;
/** EventSource reconnects after a dropped connection (a restart) this long after. */
const RETRY_MS = 5000;
/** How often the session behind a tail is looked up again (two small queries). */
const SESSION_CHECK_MS = 5000;
/**
 * Unread bytes at which the client is taken to have stopped reading. Without a limit, a client
 * holding the connection open without reading (a frozen tab, a script) had every record of the
 * ten minutes a tail lasts kept in memory for it: up to hundreds of MB for each of its tails.
 */
const MAX_UNREAD_BYTES = 1024 * 1024;

/** An SSE event; JSON data has no newline, so one data line carries it. */
function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** What the page's island shows of a record; text only, put in with textContent. */
function row(record: LogRecord) {
  return {
    id: record.id,
    timestamp: new Date(record.timestamp * 1000).toISOString(),
    level: record.level,
    body: record.body.length > MAX_BODY ? `${cutText(record.body, MAX_BODY)}…` : record.body,
    traceId: record.traceId,
  };
}

/** Starts the tail; the answer stops it (idempotent), for when the client goes away. */
export function startLogTail(options: TailOptions): () => void {
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? POLL_MS;
  const limits = options.limits ?? TAIL_LIMITS;
  const guard = new TailGuard(now(), limits);
  const window = new TailWindow(now() / 1000);
  const timers = options.timers ?? REAL_TIMERS;
  let timer: unknown;
  let stopped = false;
  let lastWrite = now();
  let lastSessionCheck = now();

  const write = (chunk: string) => {
    lastWrite = now();
    options.write(chunk);
  };
  const stop = () => {
    stopped = true;
    if (timer !== undefined) timers.clear(timer);
    timer = undefined;
  };
  const finish = (event: string, data: unknown) => {
    write(sseEvent(event, data));
    stop();
    options.end();
  };

  /** New records up to one more than the guard's budget: beyond that the tail pauses anyway. */
  const poll = async (): Promise<{ fresh: LogRecord[]; more: boolean }> => {
    const since = window.since(now() / 1000);
    const fresh: LogRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await options.logs.searchLogs({
        ...options.query,
        since,
        order: 'oldest',
        limit: PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      });
      fresh.push(...window.fresh(page.items, since));
      cursor = page.nextCursor;
      if (fresh.length > guard.budget) break;
    } while (cursor && !stopped);
    return { fresh, more: cursor !== undefined };
  };

  const tick = async (): Promise<void> => {
    timer = undefined;
    if ((options.unread?.() ?? 0) > MAX_UNREAD_BYTES) {
      stop();
      options.abandon?.();
      return;
    }
    let fresh: LogRecord[];
    let more: boolean;
    try {
      if (options.stillAllowed && now() - lastSessionCheck >= SESSION_CHECK_MS) {
        lastSessionCheck = now();
        // A lookup that fails is asked again at the next check, not taken for the log store's failure.
        if (!(await options.stillAllowed().catch(() => true))) {
          if (!stopped)
            finish('stopped', {
              message:
                'Your session ended (signed out, expired, or your access changed), so the live tail stopped. Sign in again to start it.',
            });
          return;
        }
      }
      ({ fresh, more } = await poll());
    } catch {
      // The store's own words stay in the server's log, never in a person's page.
      if (!stopped)
        finish('failed', { message: 'The log store did not answer, so the live tail ended. Start again in a moment.' });
      return;
    }
    if (stopped) return;
    const verdict: TailVerdict = guard.check(now(), fresh.length, more);
    if (verdict.kind !== 'continue') return finish(verdict.kind, { message: verdict.message });
    for (const record of fresh) write(sseEvent('record', row(record)));
    if (now() - lastWrite >= KEEP_ALIVE_MS) write(': keep-alive\n\n');
    timer = timers.set(tick, pollMs);
  };

  write(`retry: ${RETRY_MS}\n\n`);
  write(sseEvent('started', { maxMinutes: Math.round(limits.maxDurationMs / 60_000), maxPerSecond: limits.maxRecordsPerSecond }));
  timer = timers.set(tick, pollMs);
  return stop;
}
