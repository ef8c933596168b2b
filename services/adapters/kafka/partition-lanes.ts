// The records of one consumer stream sorted by partition: each partition's lane hands its records
// to the handler in order, a batch at a time, and commits past a batch only after it was handled.
// Lanes run concurrently. One set of lanes serves one stream: when the group assigns partitions
// again, the subscription closes the set (waiting for the batches in hand) and starts a new one
// on a new stream, which fetches from the last commit. Kept apart from the Kafka client so its
// ordering rules are tested alone.

interface LaneOptions<T> {
  maxBatchSize: number;
  /** Resolves true once handled; false when the batch must stay uncommitted (the lanes are closing). */
  handle(partition: number, items: T[], closing: AbortSignal): Promise<boolean>;
  commit(last: T): Promise<void>;
}

interface Lane<T> {
  items: T[];
  /** The offset after the last record taken: anything below it was taken already. */
  next: bigint | undefined;
  running: Promise<void> | undefined;
  /** A batch was left unhandled: nothing after it may be handled, let alone committed. */
  stopped: boolean;
}

export class PartitionLanes<T> {
  /** Told when the waiting records reach the limit (pause fetching) and when they fall to half of it (resume). */
  onPressure: ((full: boolean) => void) | undefined;
  private readonly lanes = new Map<number, Lane<T>>();
  private readonly closing = new AbortController();
  private readonly limit: number;
  private waiting = 0;
  private full = false;

  constructor(private readonly options: LaneOptions<T>) {
    // Four handler calls' worth, shared by the stream's lanes, so that lanes finishing a call
    // find fuller ones waiting. A call costs mostly round trips and waits (the Postgres
    // transaction, the ClickHouse INSERT), so fuller calls work off a backlog faster: 2,558-2,729
    // events/s against 2,030-2,199 with two calls' worth and 2,348 with three, for 80-110 MB
    // more at the dispatcher's peak (npm run bench:distributed; docs/benchmarks.md,
    // "2026-11-30 (second)").
    this.limit = 4 * options.maxBatchSize;
  }

  /** Queues a record; one below the lane's position (delivered again) is dropped. */
  add(partition: number, offset: bigint, item: T): void {
    if (this.closing.signal.aborted) return;
    let lane = this.lanes.get(partition);
    if (!lane) {
      lane = { items: [], next: undefined, running: undefined, stopped: false };
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
    lane.running ??= this.work(partition, lane);
  }

  /** Takes no more records, drops those waiting, tells handlers to give up retrying, and waits for every batch in hand. */
  async close(): Promise<void> {
    this.closing.abort();
    for (const lane of this.lanes.values()) this.release(lane.items.splice(0).length);
    await Promise.all([...this.lanes.values()].map((lane) => lane.running));
  }

  private async work(partition: number, lane: Lane<T>): Promise<void> {
    // A fetch's records arrive in one synchronous run: starting a turn later batches them together.
    await Promise.resolve();
    try {
      while (lane.items.length > 0 && !this.closing.signal.aborted) {
        const batch = lane.items.splice(0, this.options.maxBatchSize);
        this.release(batch.length);
        if (!(await this.options.handle(partition, batch, this.closing.signal))) {
          lane.stopped = true;
          this.release(lane.items.splice(0).length);
          return;
        }
        // Committed even while closing: the batch was handled, and its records need not come again.
        await this.options.commit(batch[batch.length - 1]!);
      }
    } finally {
      lane.running = undefined;
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
