// The records of one consumer stream sorted by partition, and handed to the handler in calls of
// at most maxBatchSize that may span partitions: each partition's records in order, a partition
// in at most one call at a time, and committed past only after its call was handled. One call
// runs at a time unless a full call's worth waits, so at a moderate rate each call carries what
// came in during the last one, and under a backlog calls over different partitions run side by
// side. One set of lanes serves one stream: when the group assigns partitions again, the
// subscription closes the set (waiting for the calls in hand) and starts a new one on a new
// stream, which fetches from the last commit. Kept apart from the Kafka client so its ordering
// rules are tested alone.

interface LaneOptions<T> {
  maxBatchSize: number;
  /** Resolves true once handled; false when the records must stay uncommitted (the lanes are closing). */
  handle(items: T[], closing: AbortSignal): Promise<boolean>;
  /** After a handled call: the last record it took of each of its partitions (failures are the caller's to log). */
  commit(lasts: T[]): Promise<void>;
}

interface Lane<T> {
  items: T[];
  /** The offset after the last record taken: anything below it was taken already. */
  next: bigint | undefined;
  /** Some of its records are in a call: the rest wait for that call to end. */
  busy: boolean;
  /** A call was left unhandled: nothing after it may be handled, let alone committed. */
  stopped: boolean;
}

export class PartitionLanes<T> {
  /** Told when the waiting records reach the limit (pause fetching) and when they fall to half of it (resume). */
  onPressure: ((full: boolean) => void) | undefined;
  private readonly lanes = new Map<number, Lane<T>>();
  private readonly calls = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  private readonly limit: number;
  private waiting = 0;
  private full = false;
  private startScheduled = false;
  /** Where the next call starts taking lanes, so that no partition waits behind the others. */
  private rotation = 0;

  constructor(private readonly options: LaneOptions<T>) {
    // Four handler calls' worth, shared by the stream's lanes, so that a call ending finds a
    // full one waiting. A call costs mostly round trips and waits (the Postgres transaction, the
    // ClickHouse INSERT), so fuller calls work off a backlog faster: 2,558-2,729 events/s
    // against 2,030-2,199 with two calls' worth and 2,348 with three, for 80-110 MB more at the
    // dispatcher's peak (npm run bench:distributed; docs/benchmarks.md, "2026-11-30 (second)").
    this.limit = 4 * options.maxBatchSize;
  }

  /** Queues a record; one below the lane's position (delivered again) is dropped. */
  add(partition: number, offset: bigint, item: T): void {
    if (this.closing.signal.aborted) return;
    let lane = this.lanes.get(partition);
    if (!lane) {
      lane = { items: [], next: undefined, busy: false, stopped: false };
      this.lanes.set(partition, lane);
    }
    if (lane.stopped || (lane.next !== undefined && offset < lane.next)) return;
    lane.items.push(item);
    lane.next = offset + 1n;
    this.waiting += 1;
    if (!this.full && this.waiting >= this.limit) {
      this.full = true;
      this.onPressure?.(true);
    }
    // A fetch's records arrive in one synchronous run: starting a turn later batches them together.
    if (!this.startScheduled) {
      this.startScheduled = true;
      queueMicrotask(() => {
        this.startScheduled = false;
        this.startCalls();
      });
    }
  }

  /** Takes no more records, drops those waiting, tells handlers to give up retrying, and waits for every call in hand. */
  async close(): Promise<void> {
    this.closing.abort();
    for (const lane of this.lanes.values()) this.release(lane.items.splice(0).length);
    await Promise.all(this.calls);
  }

  private startCalls(): void {
    while (!this.closing.signal.aborted) {
      const ready = [...this.lanes.values()].filter((lane) => !lane.busy && !lane.stopped && lane.items.length > 0);
      const count = ready.reduce((sum, lane) => sum + lane.items.length, 0);
      if (count === 0) return;
      // A second call only for a full one. At 1,000 events/s over 4 partitions calls then carried
      // about 200 events, 5 a second, against 50-100 in 10-20 calls a second when each partition
      // had calls of its own, and the whole path cost 1.34-1.35 core-ms per event against
      // 1.40-1.54, with events listed sooner (npm run bench:distributed; docs/benchmarks.md,
      // "2026-11-30 (third)").
      if (this.calls.size > 0 && count < this.options.maxBatchSize) return;
      const call = this.run(this.take(ready)).finally(() => {
        this.calls.delete(call);
        this.startCalls();
      });
      this.calls.add(call);
    }
  }

  /** Up to maxBatchSize records from the ready lanes, starting at the next lane in rotation. */
  private take(ready: Lane<T>[]): Array<{ lane: Lane<T>; items: T[] }> {
    const start = this.rotation++ % ready.length;
    const taken: Array<{ lane: Lane<T>; items: T[] }> = [];
    let room = this.options.maxBatchSize;
    for (const lane of [...ready.slice(start), ...ready.slice(0, start)]) {
      if (room === 0) break;
      const items = lane.items.splice(0, room);
      room -= items.length;
      lane.busy = true;
      taken.push({ lane, items });
    }
    this.release(this.options.maxBatchSize - room);
    return taken;
  }

  private async run(taken: Array<{ lane: Lane<T>; items: T[] }>): Promise<void> {
    try {
      // A handler that throws (the subscription's never does) counts as one that gave up.
      const items = taken.flatMap((part) => part.items);
      const handled = await this.options.handle(items, this.closing.signal).catch(() => false);
      if (!handled) {
        for (const { lane } of taken) {
          lane.stopped = true;
          this.release(lane.items.splice(0).length);
        }
        return;
      }
      // Committed even while closing: the call was handled, and its records need not come again.
      await this.options.commit(taken.map(({ items }) => items[items.length - 1]!)).catch(() => {});
    } finally {
      for (const { lane } of taken) lane.busy = false;
    }
  }

  private release(count: number): void {
    this.waiting -= count;
    if (this.full && this.waiting <= this.limit / 2) {
      this.full = false;
      this.onPressure?.(false);
    }
  }
}
