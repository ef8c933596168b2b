// Coalesces concurrent writes to one ClickHouse table into few, large INSERTs (ClickHouse makes a
// part per INSERT and prefers thousands of rows to a handful). Rows wait until maxWaitMs after
// the last INSERT started, or until maxRows (or maxBytes) fill one: a write after a quiet spell
// goes out at once, and under load each INSERT carries what came in since the last one started.
// The timer so starts at most one INSERT per maxWaitMs, the ceiling it had when the window
// counted from a write's first row; below that ceiling INSERTs may now be smaller and more
// frequent. Each caller's promise settles with the INSERTs that carried its rows, so the
// dispatcher commits queue offsets only after them. An INSERT of several callers' rows that the
// server refused for its data (not an outage) is tried again caller by caller: one caller's bad
// row fails that caller alone. Otherwise the dispatcher's isolation of a bad record (each record
// retried on its own) kept meeting the bad row in shared INSERTs, and dropped good records.
import { UnavailableError } from '../../core/errors.ts';

export interface BatchLimits {
  /** Most rows in one INSERT; a larger call is split over several. Default 5000. */
  maxRows?: number;
  /** The longest a row waits for its INSERT to start; rows wait until this long after the last INSERT started. Default 200 ms. */
  maxWaitMs?: number;
  /**
   * Most bytes in one INSERT, by the store's measure of a row; a row larger alone goes alone.
   * Default 32 MiB. Rows bounded by count alone let 5,000 events near 1 MiB each make one body
   * of 5 GB: past V8's longest string, so the INSERT failed and each record was retried alone.
   */
  maxBytes?: number;
}

export interface BatchReport {
  rows: number;
  seconds: number;
  error?: unknown;
}

interface Waiter {
  /** Rows still queued, not yet in any INSERT. */
  unsent: number;
  /** INSERTs under way that carry some of its rows. */
  running: number;
  failed: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

interface Queued<Row> {
  rows: Row[];
  /** Each row's size, by rowBytes. */
  sizes: number[];
  waiter: Waiter;
}

/** What a store passes on to its batcher. */
export interface BatchedWriteOptions {
  batch?: BatchLimits;
  /** Called after every INSERT, failed or not: for the write batch metrics. */
  report?: (report: BatchReport) => void;
}

const DEFAULT_BATCH_LIMITS = { maxRows: 5000, maxWaitMs: 200, maxBytes: 32 * 1024 * 1024 } as const;

export class InsertBatcher<Row> {
  private readonly maxRows: number;
  private readonly maxWaitMs: number;
  private readonly maxBytes: number;
  private queue: Array<Queued<Row>> = [];
  private queuedRows = 0;
  private queuedBytes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** performance.now() when the last INSERT started. */
  private lastStarted = -Infinity;
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly write: (rows: Row[]) => Promise<void>,
    limits: BatchLimits = {},
    private readonly report: (report: BatchReport) => void = () => {},
    /** A row's size in the INSERT's body, near enough (its long text fields). */
    private readonly rowBytes: (row: Row) => number = () => 0,
  ) {
    this.maxRows = limits.maxRows ?? DEFAULT_BATCH_LIMITS.maxRows;
    this.maxWaitMs = limits.maxWaitMs ?? DEFAULT_BATCH_LIMITS.maxWaitMs;
    this.maxBytes = limits.maxBytes ?? DEFAULT_BATCH_LIMITS.maxBytes;
    if (!Number.isInteger(this.maxRows) || this.maxRows < 1) throw new Error('batch maxRows must be a positive integer');
    if (!(this.maxWaitMs >= 0)) throw new Error('batch maxWaitMs must be zero or more');
    if (!(this.maxBytes > 0)) throw new Error('batch maxBytes must be more than zero');
  }

  /** Resolves once every one of these rows is in a successful INSERT; rejects if one failed. */
  add(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('the ClickHouse store is closed'));
    return new Promise<void>((resolve, reject) => {
      const sizes = rows.map(this.rowBytes);
      this.queue.push({ rows: rows.slice(), sizes, waiter: { unsent: rows.length, running: 0, failed: false, resolve, reject } });
      this.queuedRows += rows.length;
      for (const size of sizes) this.queuedBytes += size;
      while (this.queuedRows >= this.maxRows || this.queuedBytes >= this.maxBytes) this.send();
      if (this.queuedRows > 0) {
        this.timer ??= setTimeout(() => this.sendAll(), Math.max(0, this.lastStarted + this.maxWaitMs - performance.now()));
      } else this.clearTimer();
    });
  }

  /** Sends whatever is queued now and waits for every INSERT under way. */
  async flush(): Promise<void> {
    this.sendAll();
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** Refuses further rows, then flushes. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private sendAll(): void {
    this.clearTimer();
    while (this.queuedRows > 0) this.send();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Takes up to maxRows rows (and maxBytes, or one row) off the front of the queue, splitting a call if it must. */
  private send(): void {
    const rows: Row[] = [];
    let bytes = 0;
    // Each caller's rows in this INSERT, for a retry caller by caller.
    const shares = new Map<Waiter, Row[]>();
    while (rows.length < this.maxRows && this.queue.length > 0) {
      const head = this.queue[0]!;
      let fits = 0;
      while (fits < head.rows.length && rows.length + fits < this.maxRows) {
        const size = head.sizes[fits]!;
        if (rows.length + fits > 0 && bytes + size > this.maxBytes) break;
        bytes += size;
        fits += 1;
      }
      if (fits === 0) break;
      let taken = head.rows;
      if (fits === taken.length) this.queue.shift();
      else {
        taken = head.rows.slice(0, fits);
        head.rows = head.rows.slice(fits);
        head.sizes = head.sizes.slice(fits);
      }
      for (const row of taken) rows.push(row);
      head.waiter.unsent -= taken.length;
      let share = shares.get(head.waiter);
      if (!share) {
        shares.set(head.waiter, (share = []));
        head.waiter.running += 1;
      }
      for (const row of taken) share.push(row);
    }
    this.queuedRows -= rows.length;
    this.queuedBytes -= bytes;
    this.lastStarted = performance.now();
    const insert = this.run(rows, shares);
    this.running.add(insert);
    void insert.finally(() => this.running.delete(insert));
  }

  private async run(rows: Row[], shares: Map<Waiter, Row[]>): Promise<void> {
    const outcome = await this.attempt(rows);
    if (outcome.failed && shares.size > 1 && !(outcome.error instanceof UnavailableError)) {
      await Promise.all([...shares].map(async ([waiter, own]) => settle(waiter, await this.attempt(own))));
      return;
    }
    for (const waiter of shares.keys()) settle(waiter, outcome);
  }

  /** One INSERT, reported. */
  private async attempt(rows: Row[]): Promise<{ failed: boolean; error?: unknown }> {
    const started = performance.now();
    let outcome: { failed: boolean; error?: unknown } = { failed: false };
    try {
      await this.write(rows);
    } catch (error) {
      outcome = { failed: true, error };
    }
    const seconds = (performance.now() - started) / 1000;
    try {
      this.report(outcome.failed ? { rows: rows.length, seconds, error: outcome.error } : { rows: rows.length, seconds });
    } catch {
      // A broken metrics hook must not decide whether a write succeeded.
    }
    return outcome;
  }
}

/** One INSERT that carried some of the waiter's rows has ended. */
function settle(waiter: Waiter, outcome: { failed: boolean; error?: unknown }): void {
  waiter.running -= 1;
  if (waiter.failed) return;
  if (outcome.failed) {
    waiter.failed = true;
    waiter.reject(outcome.error);
  } else if (waiter.running === 0 && waiter.unsent === 0) waiter.resolve();
}
