// The standalone Queue adapter: a durable write-ahead log per topic on the local disk
// (<data dir>/queue/<topic>/). An event acknowledged with 200 is in a synced segment file, so
// it survives kill -9; the dispatcher resumes from its committed offset after a restart and
// sees every record that was not yet committed again (handlers are idempotent).
//
// One instance can both publish and consume ('both'), or the two sides can live in two
// threads ('writer' and 'reader') linked by a peer channel: the writer announces synced bytes,
// the reader announces what it committed (for the backlog limit and segment clean-up).
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
import { DamagedSegmentError, TopicLog, type DurableEnd } from './topic-log.ts';

export type QueuePeerMessage =
  | { kind: 'durable'; topic: string; end: number; lastSequence: number }
  | { kind: 'committed'; topic: string; group: string; offset: number };

export interface QueuePeer {
  send(message: QueuePeerMessage): void;
  onMessage(handler: (message: QueuePeerMessage) => void): void;
}

interface LocalQueueOptions {
  /** Bytes per segment file before a new one starts. */
  segmentBytes?: number;
  /** How old a segment may get before a new one starts (default an hour); see TopicLog. */
  segmentMaxAgeMs?: number;
  /** See TopicLog's minFlushIntervalMs: how long appends may wait to share an fsync. */
  minFlushIntervalMs?: number;
  /** Uncommitted bytes beyond which publishing is refused (503) rather than filling the disk. */
  maxBacklogBytes?: number;
  /**
   * How long a subscription waits, from the start of one handler call, before handing over a
   * batch that is not full: under a steady load each call then takes what arrived in that time,
   * and the costs of a call are shared by more records. Records after a quiet spell, a batch already
   * full when a call ends, and a draining stop go at once. 0 (the default): whatever is waiting,
   * as soon as a call ends.
   */
  minBatchIntervalMs?: number;
  /**
   * Called when a handler, a read, a commit or a segment's deletion fails. Each is tried again
   * (after a back-off; a deletion at the next commit), except damaged bytes in a segment, which
   * are stepped over to the next whole record; and when recovery finds such damage.
   */
  onHandlerError?: (error: unknown, topic: string) => void;
  /** 'both' (default), or one side of a queue split over two threads linked by `peer`. */
  mode?: 'both' | 'writer' | 'reader';
  peer?: QueuePeer;
  /** A reader's: where each topic's synced bytes ended when it was started (see knownEnds). */
  durableEnds?: Record<string, DurableEnd>;
}

interface GroupState {
  topic: string;
  group: string;
  committed: number;
}

/**
 * Bytes of record values per handler call, whatever the record count: bounds memory (1,000 events
 * of the benchmark's 9 KB fit). A call may pass it by one record, which is always taken whole.
 */
const MAX_BATCH_BYTES = 12 * 1024 * 1024;

export class LocalQueue implements Queue {
  private readonly logs = new Map<string, Promise<TopicLog>>();
  private readonly groupStates = new Map<string, Promise<GroupState>>();
  /**
   * A reader's last known synced end of each topic: options.durableEnds, then each announcement.
   * Every open of a topic's log reads up to it, not to the files' length (TopicLog's knownDurable),
   * a second open after a failed one included.
   */
  private readonly knownEnds: Map<string, DurableEnd>;
  /** Committed positions, local or reported by the reader, by topic and group. */
  private readonly committed = new Map<string, Map<string, number>>();
  private readonly subscriptions = new Set<LocalSubscription>();
  private readonly mode: 'both' | 'writer' | 'reader';
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly options: LocalQueueOptions = {},
  ) {
    this.mode = options.mode ?? 'both';
    this.knownEnds = new Map(Object.entries(options.durableEnds ?? {}));
    if (this.mode !== 'both' && !options.peer) throw new Error(`a ${this.mode} queue needs a peer`);
    options.peer?.onMessage((message) => void this.onPeerMessage(message));
  }

  async publish(topic: string, records: QueueRecord[]): Promise<void> {
    if (this.mode === 'reader') throw new Error('this side of the queue only consumes');
    if (this.closed) throw new UnavailableError('the queue is shutting down: retry shortly');
    if (!TOPIC_NAME.test(topic)) throw invalidTopicName(topic); // a programming error, not a 503
    const log = await this.log(topic).catch((error: Error) => {
      throw new UnavailableError(`${openFailure(topic, error)}: retry later; the server needs a restart`, { cause: error });
    });
    const positions = [...(this.committed.get(topic)?.values() ?? [])];
    const consumed = positions.length > 0 ? Math.min(...positions) : log.startOffset;
    // The records about to be written count: one large publish cannot overshoot the limit.
    const incoming = records.reduce((sum, record) => sum + record.value.length, 0);
    if (log.durableEnd - consumed + incoming > (this.options.maxBacklogBytes ?? 1024 * 1024 * 1024)) {
      throw new UnavailableError('the event queue is full: processing is behind; retry later');
    }
    try {
      await log.append(records);
    } catch (error) {
      throw new UnavailableError(`the event queue could not store the data (${(error as Error).message}): retry later`);
    }
  }

  subscribe(topic: string, options: SubscribeOptions, handler: BatchHandler): Subscription {
    if (this.mode === 'writer') throw new Error('this side of the queue only publishes');
    const subscription = new LocalSubscription(this, topic, options, handler, this.options.minBatchIntervalMs ?? 0);
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  /** From record numbers: exact, and as cheap for a long backlog as for a short one. */
  async lag(): Promise<PartitionLag[]> {
    const out: PartitionLag[] = [];
    for (const [topic, groups] of this.committed) {
      const log = await this.log(topic);
      for (const [group, offset] of groups) out.push({ topic, partition: 0, group, lag: await log.recordsFrom(offset) });
    }
    return out;
  }

  /** Opens (and, when writing, recovers) these topics' logs now rather than on first use. */
  async openTopics(topics: string[]): Promise<void> {
    await Promise.all(topics.map((topic) => this.log(topic)));
  }

  /** Where each topic's synced bytes end now, for a reader started next (durableEnds). */
  async durableEnds(topics: string[]): Promise<Record<string, DurableEnd>> {
    const logs = await Promise.all(topics.map((topic) => this.log(topic)));
    return Object.fromEntries(logs.map((log, i) => [topics[i]!, { end: log.durableEnd, lastSequence: log.lastSequence }]));
  }

  async ping(): Promise<void> {
    if (this.closed) throw new UnavailableError('the queue is closed');
    for (const [topic, log] of this.logs) {
      const failure = await log.then(
        (opened) => opened.syncFailure,
        (error: Error) => new Error(openFailure(topic, error)),
      );
      if (failure) throw new UnavailableError(`${failure.message}: restart the server, which recovers what reached the disk`);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    // A log still opening that fails has nothing to close.
    for (const log of this.logs.values())
      await log.then(
        (opened) => opened.close(),
        () => undefined,
      );
  }

  /** @internal Used by subscriptions. */
  log(topic: string): Promise<TopicLog> {
    if (!TOPIC_NAME.test(topic)) return Promise.reject(invalidTopicName(topic));
    let log = this.logs.get(topic);
    if (!log) {
      const peer = this.options.peer;
      const known = this.mode === 'reader' ? this.knownEnds.get(topic) : undefined;
      log = TopicLog.open(join(this.dir, topic), {
        segmentBytes: this.options.segmentBytes ?? 64 * 1024 * 1024,
        segmentMaxAgeMs: this.options.segmentMaxAgeMs ?? 60 * 60 * 1000,
        minFlushIntervalMs: this.options.minFlushIntervalMs ?? 0,
        readOnly: this.mode === 'reader',
        onDamage: (error: Error) => this.handlerFailed(error, topic),
        ...(known ? { knownDurable: known } : {}),
        ...(this.mode === 'writer' && peer
          ? { onDurable: (end: number, lastSequence: number) => peer.send({ kind: 'durable', topic, end, lastSequence }) }
          : {}),
      });
      // A writer's log that failed to open stays failed until a restart, as one whose sync failed
      // does: opening it again could find a segment whose directory entry never reached the disk
      // and confirm publishes into it. The health check (ping) reports it. A reader's claims
      // nothing, so the next use opens it again.
      this.logs.set(topic, log);
      if (this.mode === 'reader') forgetIfRejected(this.logs, topic, log);
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
      forgetIfRejected(this.groupStates, key, state); // reading the position again is safe
    }
    return state;
  }

  private async loadGroupState(topic: string, group: string): Promise<GroupState> {
    const log = await this.log(topic);
    // Never beyond the end: a position past it (a log cut short by the disk) would skip new records.
    const saved = (await readCommittedOffset(join(this.dir, topic), group)) ?? 0;
    const committed = Math.min(Math.max(saved, log.startOffset), log.durableEnd);
    this.noteCommitted(topic, group, committed);
    return { topic, group, committed };
  }

  /** @internal Records the group's new position and drops segments nobody needs any more. */
  async commit(state: GroupState, offset: number): Promise<void> {
    writeCommittedOffset(join(this.dir, state.topic), state.group, offset);
    state.committed = offset;
    this.noteCommitted(state.topic, state.group, offset);
    try {
      await (await this.log(state.topic)).discardBefore(Math.min(...this.committed.get(state.topic)!.values()));
    } catch (error) {
      // The position is committed; the segment stays listed and is tried again at the next commit.
      this.handlerFailed(new Error(`deleting a finished queue segment failed: ${String(error)}`, { cause: error }), state.topic);
    }
  }

  private noteCommitted(topic: string, group: string, offset: number): void {
    const groups = this.committed.get(topic) ?? new Map<string, number>();
    groups.set(group, offset);
    this.committed.set(topic, groups);
    if (this.mode === 'reader') this.options.peer!.send({ kind: 'committed', topic, group, offset });
  }

  private async onPeerMessage(message: QueuePeerMessage): Promise<void> {
    if (message.kind === 'durable' && this.mode === 'reader') {
      const known = this.knownEnds.get(message.topic);
      if (!known || message.end > known.end) {
        this.knownEnds.set(message.topic, { end: message.end, lastSequence: message.lastSequence });
      }
      // A log that failed to open reads up to the known end when it is opened again.
      const log = await this.log(message.topic).catch(() => undefined);
      log?.advanceDurableEnd(message.end, message.lastSequence);
    }
    if (message.kind === 'committed' && this.mode === 'writer') {
      const groups = this.committed.get(message.topic) ?? new Map<string, number>();
      groups.set(message.group, message.offset);
      this.committed.set(message.topic, groups);
    }
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
  /** Set by a draining stop(): the records left go without waiting to fill a batch. */
  private draining = false;
  /** Whether `wake` ends a wait to fill a batch (rather than a back-off, which a drain lets run). */
  private waitingToFill = false;

  constructor(
    private readonly queue: LocalQueue,
    private readonly topic: string,
    private readonly options: SubscribeOptions,
    private readonly handler: BatchHandler,
    private readonly minBatchIntervalMs: number,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(options: { drain?: boolean; timeoutMs?: number } = {}): Promise<void> {
    const opened = await this.opened().catch(() => undefined); // a topic that failed to open has nothing to drain or wake
    if (options.drain && this.running && opened) {
      const target = opened.log.durableEnd;
      const deadline = Date.now() + (options.timeoutMs ?? 30_000);
      this.draining = true;
      if (this.waitingToFill) this.wake?.();
      while (opened.state.committed < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    }
    this.running = false;
    opened?.log.wakeReaders();
    this.wake?.();
    await this.loop;
    this.queue.forget(this);
  }

  private async opened(): Promise<{ log: TopicLog; state: GroupState }> {
    const log = await this.queue.log(this.topic);
    return { log, state: await this.queue.groupState(this.topic, this.options.group) };
  }

  /** The topic's log and the group's position, tried again after a back-off until they open or the subscription stops. */
  private async open(): Promise<{ log: TopicLog; state: GroupState } | undefined> {
    for (let failures = 1; this.running; failures++) {
      try {
        return await this.opened();
      } catch (error) {
        this.queue.handlerFailed(
          new Error(`opening the queue's topic ${this.topic} failed: ${String(error)}`, { cause: error }),
          this.topic,
        );
        await this.backOff(failures);
      }
    }
    return undefined;
  }

  private async run(): Promise<void> {
    const opened = await this.open();
    if (!opened) return; // stopped before the topic opened
    const { log, state } = opened;
    let failures = 0;
    let lastCallStarted = -Infinity;
    while (this.running) {
      await this.waitToFillBatch(log, state, lastCallStarted);
      if (!this.running) break;
      let records;
      try {
        records = await log.read(state.committed, this.options.maxBatchSize, MAX_BATCH_BYTES);
      } catch (error) {
        failures += 1;
        this.queue.handlerFailed(error, this.topic);
        if (error instanceof DamagedSegmentError) {
          // What the damaged bytes held cannot be read; the records after them can.
          await this.commit(state, error.resumeAt);
        } else {
          await this.backOff(failures);
        }
        continue;
      }
      if (records.length === 0) {
        // Checked with no await in between, so a concurrent stop() cannot be missed.
        if (!this.running) break;
        // Announced but not yet readable (a segment file still being created): look again shortly.
        if (log.durableEnd > state.committed) await this.sleep(10);
        else await log.waitForData(state.committed);
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
        lastCallStarted = performance.now();
        await this.handler(delivered);
        failures = 0;
      } catch (error) {
        failures += 1;
        this.queue.handlerFailed(error, this.topic);
        // Back off and retry the same batch: nothing is skipped, nothing is committed.
        await this.backOff(failures);
        continue;
      }
      await this.commit(state, records[records.length - 1]!.next);
    }
  }

  /**
   * Commits, retrying after a back-off until the commit succeeds or the subscription stops. The
   * batch is not handed over again meanwhile: its work is done, only its position is not on disk
   * yet. A restart before the commit succeeds redelivers it, which handlers take as a repeat.
   */
  private async commit(state: GroupState, offset: number): Promise<void> {
    for (let failures = 1; ; failures++) {
      try {
        await this.queue.commit(state, offset);
        return;
      } catch (error) {
        this.queue.handlerFailed(
          new Error(`committing the consumer's position failed: ${String(error)}`, { cause: error }),
          this.topic,
        );
        if (!this.running) return;
        await this.backOff(failures);
      }
    }
  }

  /**
   * The rest of minBatchIntervalMs since the last handler call started, unless a full batch (by
   * records, or about by bytes) is already waiting. Decided once: records that arrive meanwhile
   * join the next batch, even when they fill it.
   */
  private async waitToFillBatch(log: TopicLog, state: GroupState, lastCallStarted: number): Promise<void> {
    const wait = lastCallStarted + this.minBatchIntervalMs - performance.now();
    if (wait <= 0 || log.durableEnd - state.committed >= MAX_BATCH_BYTES) return;
    // A failed look goes on at once: the read that follows reports the failure.
    const waiting = await log.recordsFrom(state.committed).catch(() => Infinity);
    // Checked after the look, with no await before the sleep: a stop() meanwhile cannot be missed.
    if (waiting >= this.options.maxBatchSize || this.draining || !this.running) return;
    this.waitingToFill = true;
    try {
      await this.sleep(Math.ceil(wait));
    } finally {
      this.waitingToFill = false;
    }
  }

  /** 0.5 s after a first failure, doubling up to 30 s. */
  private backOff(failures: number): Promise<void> {
    return this.sleep(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
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

const TOPIC_NAME = /^[A-Za-z0-9_.-]+$/;

function invalidTopicName(topic: string): Error {
  return new Error(`invalid topic name "${topic}"`);
}

function openFailure(topic: string, error: Error): string {
  return `the event queue could not open topic ${topic} (${error.message})`;
}

/** Removes `promise` from `cache` if it rejects, so the next use tries again. */
function forgetIfRejected<T>(cache: Map<string, Promise<T>>, key: string, promise: Promise<T>): void {
  promise.catch(() => {
    if (cache.get(key) === promise) cache.delete(key);
  });
}
