// One subscription of the Kafka queue (broker → dispatcher): a @platformatic/kafka consumer of
// its own in the consumer group, so each topic's subscription starts and stops on its own.
// Records arrive on a stream and are sorted into a lane per partition (stream-feed.ts,
// partition-lanes.ts); a lane's records are handled in order, at most maxBatchSize per handler
// call (a call may take several partitions' records), and committed by hand after the handler
// resolved; calls over different partitions run side by side when a backlog fills them.
import { setTimeout as delay } from 'node:timers/promises';
import { Consumer, type Admin, type ConsumerGroupJoinPayload } from '@platformatic/kafka';
import type { BatchHandler, DeliveredRecord, SubscribeOptions, Subscription } from '../../core/ports/queue.ts';
import type { KafkaLogger } from './kafka-logging.ts';
import { committedOffsets, partitionRanges, recordsBehind } from './partition-offsets.ts';
import { ASSIGNER_PROTOCOL, subscribedRoundRobin } from './subscription-assigner.ts';
import { RestartBackoff } from './restart-backoff.ts';
import { StreamFeed, type Fetched } from './stream-feed.ts';
import { withTimeout } from '../../core/with-timeout.ts';

export interface ConsumerSettings {
  /** A member silent this long (crashed, SIGKILLed, partitioned) loses its partitions. */
  sessionTimeoutMs: number;
  /** How long the group waits for members to rejoin when it rebalances. */
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** Longest wait of an idle fetch; also bounds how soon an idle member sees new records. */
  maxWaitTimeMs: number;
  /** Most bytes one fetch brings of one partition. */
  maxBytesPerPartition: number;
}

interface KafkaSubscriptionContext {
  brokers: string[];
  clientId: string;
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
  private readonly stopSignal = new AbortController();
  private assigned: number[] = [];
  private endCurrent: (() => void) | undefined;
  private stopped: Promise<void> | undefined;
  private readonly loop: Promise<void>;

  constructor(private readonly context: KafkaSubscriptionContext) {
    this.loop = this.run();
  }

  /** Partitions of the topic the group gave this member when it last joined (empty before that). */
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
    // The loop waits for the batches in hand: their handler calls finish and commit.
    await this.loop;
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

  /** Keeps a consumer in the group until stopped, replacing one whose stream or group failed. */
  private async run(): Promise<void> {
    const backoff = new RestartBackoff();
    while (!this.stopping) {
      // Made before anything is awaited, so a stop() from now on ends this consumer.
      const ended = new Promise<void>((resolve) => (this.endCurrent = resolve));
      let consumer: Consumer<Buffer, Buffer, Buffer, Buffer> | undefined;
      let feed: StreamFeed | undefined;
      let unwatch: (() => void) | undefined;
      try {
        await this.context.ensureTopic();
        if (this.stopping) break;
        consumer = this.createConsumer();
        feed = new StreamFeed(consumer, this.context, (records, closing) => this.handle(records, closing));
        const end = this.endCurrent!;
        unwatch = this.watch(consumer, feed, end, () => backoff.joined());
        await feed.start(end);
        await ended;
      } catch (error) {
        this.context.logger?.warn({ err: error, topic: this.context.topic }, 'queue consumer failed; starting a new one');
      }
      unwatch?.();
      // Batches in hand finish and commit before the member leaves.
      await feed?.close();
      this.assigned = [];
      await leave(consumer).catch((error: unknown) => {
        this.context.logger?.warn({ err: error, topic: this.context.topic }, 'queue consumer did not leave the group cleanly');
      });
      if (this.stopping) break;
      await this.sleep(backoff.ended());
    }
  }

  private createConsumer(): Consumer<Buffer, Buffer, Buffer, Buffer> {
    const s = this.context.settings;
    return new Consumer({
      clientId: this.context.clientId,
      bootstrapBrokers: this.context.brokers,
      groupId: this.context.groupId,
      sessionTimeout: s.sessionTimeoutMs,
      rebalanceTimeout: s.rebalanceTimeoutMs,
      heartbeatInterval: s.heartbeatIntervalMs,
      maxWaitTime: s.maxWaitTimeMs,
      maxBytesPerPartition: s.maxBytesPerPartition,
      protocols: [ASSIGNER_PROTOCOL],
      partitionAssigner: subscribedRoundRobin,
      connectTimeout: 3_000,
      timeout: 30_000,
      retries: 5,
      retryDelay: 300,
      autocreateTopics: false,
    });
  }

  /** Listeners of one consumer: they act on that consumer's feed and end only that consumer. Returns what stops the watchdog. */
  private watch(
    consumer: Consumer<Buffer, Buffer, Buffer, Buffer>,
    feed: StreamFeed,
    end: () => void,
    onJoined: () => void,
  ): () => void {
    const { kafkaTopic, settings } = this.context;
    let lastJoin: number | undefined;
    consumer.on('consumer:group:join', (payload: ConsumerGroupJoinPayload) => {
      const mine = (payload.assignments ?? []).find((a) => a.topic === kafkaTopic)?.partitions ?? [];
      this.assigned = [...mine].sort((a, b) => a - b);
      lastJoin = Date.now();
      // The stream in use fetched for the old assignment: a new one starts from the last commits.
      feed.restart(end);
      onJoined();
    });
    consumer.on('consumer:group:leave', () => (this.assigned = []));
    // The client emits errors it could not recover from (a failed rejoin): start over.
    consumer.on('error', (error: unknown) => {
      this.context.logger?.warn({ err: error, topic: this.context.topic }, 'queue consumer error');
      end();
    });
    // A member whose heartbeats stopped without an error (a rejoin that failed half-way) is out
    // of the group without knowing it: replace it.
    const watchdog = setInterval(() => {
      const lastSign = Math.max(consumer.lastHeartbeat?.getTime() ?? 0, lastJoin ?? 0);
      // Heartbeats pause while a rejoin waits for the rest of the group (up to the rebalance timeout).
      if (lastJoin === undefined || Date.now() - lastSign < settings.rebalanceTimeoutMs + settings.sessionTimeoutMs) return;
      this.context.logger?.warn({ topic: this.context.topic }, 'queue consumer stopped heartbeating; starting a new one');
      end();
    }, settings.sessionTimeoutMs);
    watchdog.unref();
    return () => clearInterval(watchdog);
  }

  /** True once the handler resolved; false when stopping or the stream's lanes are closing (nothing committed). */
  private async handle(records: Fetched[], closing: AbortSignal): Promise<boolean> {
    const delivered = records.map((record) => this.deliver(record));
    const still = () => !this.stopping && !closing.aborted;
    for (let failures = 1; ; failures++) {
      try {
        await this.context.handler(delivered);
        return true;
      } catch (error) {
        this.context.onHandlerError?.(error, this.context.topic);
        this.context.logger?.warn(
          { err: error, topic: this.context.topic, partitions: [...new Set(records.map((r) => r.partition))], failures },
          'queue handler failed; retrying the same records',
        );
      }
      if (!still()) return false;
      await this.sleep(Math.min(30_000, 250 * 2 ** Math.min(failures - 1, 7)), closing);
      // Stopping, or the group assigned partitions again meanwhile: the next stream starts from the last commit.
      if (!still()) return false;
    }
  }

  private deliver(record: Fetched): DeliveredRecord {
    return {
      topic: this.context.topic,
      partition: record.partition,
      offset: record.offset.toString(),
      key: record.key?.toString('utf8') ?? '',
      value: record.value ?? Buffer.alloc(0),
    };
  }

  private async sleep(ms: number, also?: AbortSignal): Promise<void> {
    const signal = also ? AbortSignal.any([this.stopSignal.signal, also]) : this.stopSignal.signal;
    await delay(ms, undefined, { signal }).catch(() => {});
  }
}

/** Closes the consumer, its streams first (force), leaving the group so its partitions move at once. */
function leave(consumer: Consumer<Buffer, Buffer, Buffer, Buffer> | undefined): Promise<void> {
  if (!consumer) return Promise.resolve();
  return new Promise((resolve, reject) => consumer.close(true, (error) => (error ? reject(error) : resolve())));
}
