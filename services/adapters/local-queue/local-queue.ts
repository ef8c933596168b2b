// The standalone Queue adapter: a durable write-ahead log per topic on the local disk
// (<data dir>/queue/<topic>/). An event acknowledged with 200 is in a synced segment file, so
// it survives kill -9; the dispatcher resumes from its committed offset after a restart and
// sees every record that was not yet committed again (handlers are idempotent).
import { join } from 'node:path';
import { UnavailableError } from '../../core/errors.ts';
import type {
  BatchHandler,
  DeliveredRecord,
  PartitionLag,
  Queue,
  QueueRecord,
  SubscribeOptions,
  Subscription,
} from '../../core/ports/queue.ts';
import { readCommittedOffset, writeCommittedOffset } from './consumer-offsets.ts';
import { TopicLog } from './topic-log.ts';

export interface LocalQueueOptions {
  /** Bytes per segment file before a new one starts. */
  segmentBytes?: number;
  /** Uncommitted bytes beyond which publishing is refused (503) rather than filling the disk. */
  maxBacklogBytes?: number;
  /** Called when a handler throws; the batch is retried after a back-off. */
  onHandlerError?: (error: unknown, topic: string) => void;
}

interface GroupState {
  topic: string;
  group: string;
  committed: number;
  /** Records published but not committed. */
  lag: number;
}

export class LocalQueue implements Queue {
  private readonly logs = new Map<string, Promise<TopicLog>>();
  private readonly groupStates = new Map<string, Promise<GroupState>>();
  private readonly groups = new Set<GroupState>();
  private readonly subscriptions = new Set<LocalSubscription>();
  private readonly segmentBytes: number;
  private readonly maxBacklogBytes: number;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly options: LocalQueueOptions = {},
  ) {
    this.segmentBytes = options.segmentBytes ?? 64 * 1024 * 1024;
    this.maxBacklogBytes = options.maxBacklogBytes ?? 1024 * 1024 * 1024;
  }

  async publish(topic: string, records: QueueRecord[]): Promise<void> {
    if (this.closed) throw new UnavailableError('the queue is shutting down: retry shortly');
    const log = await this.log(topic);
    const committed = Math.min(...[...this.groups.values()].filter((g) => g.topic === topic).map((g) => g.committed));
    const backlog = log.durableEnd - (Number.isFinite(committed) ? committed : log.startOffset);
    if (backlog > this.maxBacklogBytes) {
      throw new UnavailableError('the event queue is full: processing is behind; retry later');
    }
    try {
      await log.append(records);
    } catch (error) {
      throw new UnavailableError(`the event queue could not store the data (${(error as Error).message}): retry later`);
    }
    for (const state of this.groups.values()) if (state.topic === topic) state.lag += records.length;
  }

  subscribe(topic: string, options: SubscribeOptions, handler: BatchHandler): Subscription {
    const subscription = new LocalSubscription(this, topic, options, handler);
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  async lag(): Promise<PartitionLag[]> {
    return [...this.groups.values()].map((g) => ({ topic: g.topic, partition: 0, group: g.group, lag: g.lag }));
  }

  async ping(): Promise<void> {
    if (this.closed) throw new UnavailableError('the queue is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    for (const log of this.logs.values()) await (await log).close();
  }

  /** @internal Used by subscriptions. */
  async log(topic: string): Promise<TopicLog> {
    if (!/^[A-Za-z0-9_.-]+$/.test(topic)) throw new Error(`invalid topic name "${topic}"`);
    let log = this.logs.get(topic);
    if (!log) {
      log = TopicLog.open(join(this.dir, topic), this.segmentBytes);
      this.logs.set(topic, log);
    }
    return log;
  }

  /** @internal The group's position, loaded from disk the first time (once, however many ask). */
  groupState(topic: string, group: string): Promise<GroupState> {
    const key = `${topic}\u0000${group}`;
    let state = this.groupStates.get(key);
    if (!state) {
      state = this.loadGroupState(topic, group);
      this.groupStates.set(key, state);
    }
    return state;
  }

  private async loadGroupState(topic: string, group: string): Promise<GroupState> {
    const log = await this.log(topic);
    const committed = Math.max((await readCommittedOffset(join(this.dir, topic), group)) ?? 0, log.startOffset);
    const state: GroupState = { topic, group, committed, lag: await log.countRecords(committed) };
    this.groups.add(state);
    return state;
  }

  /** @internal Records the group's new position and drops segments nobody needs any more. */
  async commit(state: GroupState, offset: number, count: number): Promise<void> {
    await writeCommittedOffset(join(this.dir, state.topic), state.group, offset);
    state.committed = offset;
    state.lag = Math.max(0, state.lag - count);
    const groups = [...this.groups.values()].filter((g) => g.topic === state.topic);
    await (await this.log(state.topic)).discardBefore(Math.min(...groups.map((g) => g.committed)));
  }

  /** @internal */
  handlerFailed(error: unknown, topic: string): void {
    this.options.onHandlerError?.(error, topic);
  }

  /** @internal */
  forget(subscription: LocalSubscription): void {
    this.subscriptions.delete(subscription);
  }
}

class LocalSubscription implements Subscription {
  private running = true;
  private loop: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;

  constructor(
    private readonly queue: LocalQueue,
    private readonly topic: string,
    private readonly options: SubscribeOptions,
    private readonly handler: BatchHandler,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(options: { drain?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (options.drain && this.running) {
      const log = await this.queue.log(this.topic);
      const state = await this.queue.groupState(this.topic, this.options.group);
      const target = log.durableEnd;
      const deadline = Date.now() + (options.timeoutMs ?? 30_000);
      while (state.committed < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    }
    this.running = false;
    (await this.queue.log(this.topic)).wakeReaders();
    this.wake?.();
    await this.loop;
    this.queue.forget(this);
  }

  private async run(): Promise<void> {
    const log = await this.queue.log(this.topic);
    const state = await this.queue.groupState(this.topic, this.options.group);
    let failures = 0;
    while (this.running) {
      const records = await log.read(state.committed, this.options.maxBatchSize);
      if (records.length === 0) {
        // Checked with no await in between, so a concurrent stop() cannot be missed.
        if (!this.running) break;
        await log.waitForData(state.committed);
        continue;
      }
      const delivered: DeliveredRecord[] = records.map((r) => ({
        topic: this.topic,
        partition: 0,
        offset: String(r.offset),
        key: r.key,
        value: r.value,
      }));
      try {
        await this.handler(delivered);
        failures = 0;
      } catch (error) {
        failures += 1;
        this.queue.handlerFailed(error, this.topic);
        // Back off and retry the same batch: nothing is skipped, nothing is committed.
        await this.sleep(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
        continue;
      }
      await this.queue.commit(state, records[records.length - 1]!.next, records.length);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
