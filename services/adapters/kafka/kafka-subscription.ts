// One subscription of the Kafka queue (broker → dispatcher): a kafkajs consumer of its own in
// the consumer group, so each topic's subscription starts and stops on its own. Offsets are
// committed by hand, after the handler resolved, one handler call (at most maxBatchSize records)
// at a time; a partition's records are handled in order, different partitions concurrently.
import { setTimeout as delay } from 'node:timers/promises';
import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { BatchHandler, DeliveredRecord, SubscribeOptions, Subscription } from '../../core/ports/queue.ts';
import type { KafkaLogger } from './kafka-logging.ts';
import { committedOffsets, partitionRanges, recordsBehind } from './partition-offsets.ts';
import { subscribedRoundRobin } from './subscription-assigner.ts';
import { withTimeout } from './with-timeout.ts';

export interface ConsumerSettings {
  /** A member silent this long (crashed, SIGKILLed, partitioned) loses its partitions. */
  sessionTimeoutMs: number;
  /** How long the group waits for members to finish their batch in hand and rejoin. */
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** Longest wait of an idle fetch; also bounds how soon an idle member notices a rebalance. */
  maxWaitTimeMs: number;
  /** Most bytes one fetch brings of one partition, which bounds that partition's batch. */
  maxBytesPerPartition: number;
  partitionsConsumedConcurrently: number;
}

interface KafkaSubscriptionContext {
  /** A client of its own: kafkajs shares committed-offset state among consumers of one client. */
  kafka: Kafka;
  admin: Admin;
  /** As the domain names it, and as the broker does (with the prefix). */
  topic: string;
  kafkaTopic: string;
  groupId: string;
  options: SubscribeOptions;
  handler: BatchHandler;
  settings: ConsumerSettings;
  ensureTopic(): Promise<void>;
  logger?: KafkaLogger;
  onHandlerError?: (error: unknown, topic: string) => void;
  onStopped(): void;
}

export class KafkaSubscription implements Subscription {
  private stopping = false;
  private finished = false;
  private readonly stopSignal = new AbortController();
  private assigned: number[] = [];
  private endCurrent: (() => void) | undefined;
  private stopped: Promise<void> | undefined;
  private readonly loop: Promise<void>;

  constructor(private readonly context: KafkaSubscriptionContext) {
    this.loop = this.run();
  }

  /** Partitions of the topic this member holds now (empty while joining or rebalancing). */
  assignment(): number[] {
    return [...this.assigned];
  }

  stop(options: { drain?: boolean; timeoutMs?: number } = {}): Promise<void> {
    this.stopped ??= this.stopOnce(options);
    return this.stopped;
  }

  private async stopOnce(options: { drain?: boolean; timeoutMs?: number }): Promise<void> {
    if (options.drain) await this.drain(options.timeoutMs ?? 30_000);
    this.stopping = true;
    this.stopSignal.abort();
    this.endCurrent?.();
    // The consumer's stop waits for the batch in hand: its handler call finishes and commits.
    await this.loop;
    this.finished = true;
    this.context.onStopped();
  }

  /** Until every record published before now is handled and committed, or the time is up. */
  private async drain(timeoutMs: number): Promise<void> {
    const { admin, kafkaTopic, groupId } = this.context;
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(0, deadline - Date.now());
    try {
      await withTimeout(this.context.ensureTopic(), left(), 'creating the topic');
      const targets = await withTimeout(partitionRanges(admin, kafkaTopic), left(), 'reading the end offsets');
      while (left() > 0) {
        const committed = await withTimeout(committedOffsets(admin, groupId, [kafkaTopic]), left(), 'reading the commits');
        const positions = committed.get(kafkaTopic) ?? new Map<number, bigint>();
        if (targets.every((range) => recordsBehind(range, positions.get(range.partition)) === 0)) return;
        await delay(Math.min(100, left()));
      }
    } catch (error) {
      this.context.logger?.warn({ err: error, topic: this.context.topic }, 'queue drain ended before the backlog was handled');
    }
  }

  /** Keeps a consumer in the group until stopped, replacing one that kafkajs gave up on. */
  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let consumer: Consumer | undefined;
      try {
        await this.context.ensureTopic();
        consumer = this.createConsumer();
        const ended = new Promise<void>((resolve) => (this.endCurrent = resolve));
        this.watch(consumer, () => (failures = 0));
        await consumer.connect();
        await consumer.subscribe({ topics: [this.context.kafkaTopic], fromBeginning: true });
        if (!this.stopping) {
          await consumer.run({
            autoCommit: false,
            eachBatchAutoResolve: false,
            partitionsConsumedConcurrently: this.context.settings.partitionsConsumedConcurrently,
            eachBatch: (payload) => this.eachBatch(payload),
          });
          await ended;
        }
      } catch (error) {
        this.context.logger?.warn({ err: error, topic: this.context.topic }, 'queue consumer failed to start; retrying');
      }
      this.assigned = [];
      await consumer?.disconnect().catch((error: unknown) => {
        this.context.logger?.warn({ err: error, topic: this.context.topic }, 'queue consumer did not disconnect cleanly');
      });
      if (this.stopping) break;
      failures += 1;
      await this.sleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
    }
  }

  private createConsumer(): Consumer {
    const s = this.context.settings;
    return this.context.kafka.consumer({
      groupId: this.context.groupId,
      partitionAssigners: [subscribedRoundRobin],
      sessionTimeout: s.sessionTimeoutMs,
      rebalanceTimeout: s.rebalanceTimeoutMs,
      heartbeatInterval: s.heartbeatIntervalMs,
      maxWaitTimeInMs: s.maxWaitTimeMs,
      maxBytesPerPartition: s.maxBytesPerPartition,
      allowAutoTopicCreation: false,
      retry: { retries: 5, initialRetryTime: 300, maxRetryTime: 5000 },
    });
  }

  private watch(consumer: Consumer, onJoined: () => void): void {
    const { kafkaTopic } = this.context;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      // A restart kafkajs scheduled just before stop() cleared it would rejoin an ended subscription.
      if (this.finished) return void consumer.disconnect().catch(() => {});
      this.assigned = [...(payload.memberAssignment[kafkaTopic] ?? [])].sort((a, b) => a - b);
      onJoined();
    });
    consumer.on(consumer.events.REBALANCING, () => (this.assigned = []));
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.assigned = [];
      // kafkajs restarts itself after retriable errors; after any other one, run() starts over.
      if (!payload.restart) this.endCurrent?.();
    });
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, isRunning, isStale } = payload;
    const { maxBatchSize } = this.context.options;
    const messages = batch.messages;
    for (let start = 0; start < messages.length; start += maxBatchSize) {
      // Unhandled records stay uncommitted: whoever holds the partition next gets them again.
      if (this.stopping || !isRunning() || isStale()) return;
      const chunk = messages.slice(start, start + maxBatchSize);
      const records = chunk.map((message) => this.deliver(batch.partition, message));
      if (!(await this.handle(records, batch.partition, payload))) return;
      const last = chunk[chunk.length - 1]!.offset;
      // After the batch's last record, past any records kafkajs filtered out (control records).
      const through = start + maxBatchSize >= messages.length ? batch.lastOffset() : last;
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(through) + 1n).toString() }] }],
      });
      payload.resolveOffset(through);
      // Throws while the group rebalances: kafkajs rejoins, and what is left comes again.
      await payload.heartbeat();
    }
  }

  /** True once the handler resolved; false when stopping or no longer running (nothing committed). */
  private async handle(records: DeliveredRecord[], partition: number, payload: EachBatchPayload): Promise<boolean> {
    // kafkajs heartbeats only between batches; neither a long handler call nor the back-off
    // between retries (up to 30 s, beyond the session timeout) may look like a dead member.
    const beat = setInterval(() => void payload.heartbeat().catch(() => {}), this.context.settings.heartbeatIntervalMs);
    try {
      for (let failures = 1; ; failures++) {
        try {
          await this.context.handler(records);
          return true;
        } catch (error) {
          this.context.onHandlerError?.(error, this.context.topic);
          this.context.logger?.warn(
            { err: error, topic: this.context.topic, partition, failures },
            'queue handler failed; retrying the same records',
          );
        }
        if (this.stopping || !payload.isRunning()) return false;
        await this.sleep(Math.min(30_000, 250 * 2 ** Math.min(failures - 1, 7)));
        if (this.stopping || !payload.isRunning()) return false;
        // Throws while the group rebalances: the partition may move to another member, which
        // starts again from the last commit, so this one stops retrying here.
        await payload.heartbeat();
      }
    } finally {
      clearInterval(beat);
    }
  }

  private deliver(partition: number, message: KafkaMessage): DeliveredRecord {
    return {
      topic: this.context.topic,
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? '',
      value: message.value ?? Buffer.alloc(0),
    };
  }

  private async sleep(ms: number): Promise<void> {
    await delay(ms, undefined, { signal: this.stopSignal.signal }).catch(() => {});
  }
}
