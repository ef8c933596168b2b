// The distributed Queue adapter (ingest publishes, dispatchers consume): Kafka through
// @platformatic/kafka (the producer, see batching-producer.ts; the consumers, see
// kafka-subscription.ts; the admin client for topics, offsets and lag).
// Topics keep the domain's `<domain>.<fact>` names behind an optional prefix that only this file
// sees; consumer groups share partitions across dispatcher processes; a publish resolves once
// every in-sync replica has the records and fails within produceTimeoutMs when they cannot.
import { Admin } from '@platformatic/kafka';
import { PayloadTooLargeError, UnavailableError } from '../../core/errors.ts';
import type { BatchHandler, PartitionLag, PublishOptions, Queue, QueueRecord, SubscribeOptions } from '../../core/ports/queue.ts';
import { BatchingProducer, ProduceTimeoutError } from './batching-producer.ts';
import type { KafkaLogger } from './kafka-logging.ts';
import { KafkaSubscription, type ConsumerSettings } from './kafka-subscription.ts';
import { committedOffsets, partitionRanges, recordsBehind } from './partition-offsets.ts';
import { TopicCreator } from './topic-creator.ts';
import { withTimeout } from '../../core/with-timeout.ts';

export interface ProduceObservation {
  /** As the domain names it (without the prefix). */
  topic: string;
  records: number;
  seconds: number;
  /** Set when the publish was rejected. */
  error?: unknown;
}

export interface KafkaQueueOptions {
  brokers: string[];
  clientId: string;
  /** Put verbatim before every topic and consumer group name on the broker; delivered records and lag() never show it. */
  topicPrefix?: string;
  /** Topics (domain names) to create at open when absent; any other is created on first use. */
  topics?: string[];
  /** Partitions of each topic this adapter creates (default 8). Existing topics are left as they are. */
  partitions?: number;
  /** Replicas of each topic this adapter creates; -1 (default) takes the broker's default.replication.factor. */
  replicationFactor?: number;
  /** max.message.bytes of each topic this adapter creates (default 16 MiB: an event or log item at its size limit fits). */
  maxMessageBytes?: number;
  /** A publish rejects once this much time passed without the brokers' acknowledgement (default 5000). */
  produceTimeoutMs?: number;
  /** Least time between the starts of two produce requests (default 3; batching-producer.ts). */
  produceIntervalMs?: number;
  /** A consumer silent this long loses its partitions to the rest of its group (default 10 000). */
  sessionTimeoutMs?: number;
  /** How long a rebalance waits for members to rejoin (default 30 000); a member's batch in hand may still be running. */
  rebalanceTimeoutMs?: number;
  /** Consumer groups lag() reports besides those this instance subscribed with (default: the dispatcher's). */
  lagGroups?: string[];
  logger?: KafkaLogger;
  observe?: { produce?(observation: ProduceObservation): void };
  /** Hears of each failed handler call (its records are retried), as errata_pipeline_batch_errors_total counts them. */
  onHandlerError?: (error: unknown, topic: string) => void;
}

/** services/dispatcher/workers.ts CONSUMER_GROUP: ingest reports the backlog its dispatchers face. */
const DISPATCHER_GROUP = 'errata-dispatcher';
const ADMIN_TIMEOUT_MS = 5_000;
/** A record batch's header (61 bytes in v2), with room to spare; and a record's own framing at most. */
const BATCH_OVERHEAD_BYTES = 1024;
const RECORD_OVERHEAD_BYTES = 64;
const PING_TIMEOUT_MS = 3_000;

/** Connects to the brokers and creates the given topics when absent; rejects when the brokers do not answer. */
export async function openKafkaQueue(options: KafkaQueueOptions): Promise<KafkaQueue> {
  const queue = new KafkaQueue(options);
  try {
    await queue.open();
    return queue;
  } catch (error) {
    await queue.close().catch(() => {});
    throw error;
  }
}

export class KafkaQueue implements Queue {
  private readonly prefix: string;
  private readonly produceTimeoutMs: number;
  private readonly admin: Admin;
  private readonly producer: BatchingProducer;
  private readonly topicCreator: TopicCreator;
  /** The most bytes of records one record batch may carry: the topics' max.message.bytes, less framing. */
  private readonly maxBatchBytes: number;
  private readonly consumerSettings: ConsumerSettings;
  private readonly subscriptions = new Set<KafkaSubscription>();
  /** Domain topic names this instance knows of (told, published to, subscribed to). */
  private readonly knownTopics = new Set<string>();
  /** Consumer groups (domain names) and the topics this instance consumed with them. */
  private readonly groupTopics = new Map<string, Set<string>>();
  private closed = false;

  constructor(private readonly options: KafkaQueueOptions) {
    this.prefix = options.topicPrefix ?? '';
    this.produceTimeoutMs = options.produceTimeoutMs ?? 5_000;
    const partitions = options.partitions ?? 8;
    const maxMessageBytes = options.maxMessageBytes ?? 16 * 1024 * 1024;
    this.maxBatchBytes = maxMessageBytes - BATCH_OVERHEAD_BYTES;
    for (const topic of options.topics ?? []) this.knownTopics.add(this.checkedTopic(topic));
    for (const group of options.lagGroups ?? [DISPATCHER_GROUP]) this.groupTopics.set(group, new Set());
    // Producer and admin fail fast: short timeouts and few retries, so a request path never waits long.
    const adminTimeoutMs = Math.max(5_000, this.produceTimeoutMs);
    this.admin = new Admin({
      clientId: options.clientId,
      bootstrapBrokers: options.brokers,
      autocreateTopics: false,
      connectTimeout: 3_000,
      // Bounds each request on the client's side; `timeout` is what the broker is given for
      // creating or deleting.
      requestTimeout: adminTimeoutMs,
      timeout: adminTimeoutMs,
      retries: 3,
      retryDelay: 100,
    });
    this.producer = new BatchingProducer(
      { clientId: options.clientId, brokers: options.brokers, timeoutMs: this.produceTimeoutMs },
      {
        ackTimeoutMs: this.produceTimeoutMs,
        // Unordered publishes that ride together share a partition, so one record batch.
        maxRequestBytes: Math.min(1024 * 1024, this.maxBatchBytes),
        // At 1,000 events/s a request carried two or three events with no spacing, and 3-4 with
        // 3 ms: the broker's CPU per event fell from 0.25-0.27 core-ms to 0.17-0.19 and
        // ingest's from 0.36 to 0.31-0.33, accept p50 unchanged; 5 ms raised it to 6.7-8.0 ms
        // (npm run bench:distributed with BENCH_OPEN_RATE=1000; docs/benchmarks.md, "2026-11-30
        // (third)").
        minRequestIntervalMs: options.produceIntervalMs ?? 3,
        onSendError: (error) => this.options.logger?.warn({ err: error }, 'kafka publish failed; starting a new producer'),
      },
    );
    this.topicCreator = new TopicCreator(this.admin, {
      partitions,
      replicationFactor: options.replicationFactor ?? -1,
      maxMessageBytes,
    });
    this.consumerSettings = {
      sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
      rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 30_000,
      heartbeatIntervalMs: Math.min(1_000, Math.floor((options.sessionTimeoutMs ?? 10_000) / 3)),
      maxWaitTimeMs: 500,
      // Chosen under kafkajs, whose batch for a partition was what one fetch held: its 1 MB held
      // near 110 events of 9 KB, far under the dispatcher's 500. With 2 MB (about 220) one
      // dispatcher worked off a backlog at 1,003-1,150 events/s against 775-923, for 55-60 MB
      // more at peak; 4 MB did no better (npm run bench:distributed; docs/benchmarks.md). The
      // partition lanes now gather a call's records from several fetches.
      maxBytesPerPartition: 2 * 1024 * 1024,
    };
  }

  /** Connects the admin client and the producer and creates the known topics. */
  async open(): Promise<void> {
    await this.admin.metadata({ topics: [] });
    await this.producer.connect();
    await this.topicCreator.ensure([...this.knownTopics].map((t) => this.kafkaName(t)));
  }

  async publish(topic: string, records: QueueRecord[], options: PublishOptions = {}): Promise<void> {
    const started = performance.now();
    const observe = (error?: unknown) =>
      this.options.observe?.produce?.({
        topic,
        records: records.length,
        seconds: (performance.now() - started) / 1000,
        ...(error === undefined ? {} : { error }),
      });
    try {
      if (this.closed) throw new UnavailableError('the event queue is shutting down: retry shortly');
      const kafkaTopic = this.kafkaName(this.checkedTopic(topic));
      this.knownTopics.add(topic);
      if (records.length > 0) {
        const deadline = Date.now() + this.produceTimeoutMs;
        if (!this.topicCreator.exists(kafkaTopic)) {
          await withTimeout(this.topicCreator.ensure([kafkaTopic]), this.produceTimeoutMs, 'creating the topic');
        }
        const messages = records.map((r) => ({ key: r.key, value: r.value }));
        const unordered = options.unordered === true;
        const batches = unordered ? this.recordBatches(topic, messages) : [messages];
        await Promise.all(
          batches.map((batch) => this.producer.send(kafkaTopic, batch, Math.max(1, deadline - Date.now()), unordered)),
        );
      }
      observe();
    } catch (error) {
      observe(error);
      // Logged once per failed request by the producer, not once per waiting publish.
      if (error instanceof UnavailableError || error instanceof PayloadTooLargeError) throw error;
      const reason =
        error instanceof ProduceTimeoutError || (error as Error).name === 'TimeoutError'
          ? `no acknowledgement within ${this.produceTimeoutMs} ms`
          : 'the brokers refused or could not be reached';
      const unavailable = new UnavailableError(`the event queue (Kafka) did not store the data (${reason}): retry later`);
      unavailable.cause = error;
      throw unavailable;
    }
  }

  /**
   * Unordered records in batches the topic takes (max.message.bytes), each sent on its own
   * partition. One request's unordered records are one record batch: past the limit the broker
   * refused it, every retry of the same envelope too (a 503 for good), and each refusal started
   * the shared producer over. A record alone past it can never be stored: refused as too large.
   */
  private recordBatches(topic: string, messages: Array<{ key: string; value: Buffer }>): Array<typeof messages> {
    const batches: Array<typeof messages> = [];
    let batch: typeof messages = [];
    let bytes = 0;
    for (const message of messages) {
      const size = message.value.length + Buffer.byteLength(message.key) + RECORD_OVERHEAD_BYTES;
      if (size > this.maxBatchBytes) {
        throw new PayloadTooLargeError(
          `a ${topic} record of ${message.value.length} bytes is more than the queue's topics take (${this.maxBatchBytes} bytes, from their max.message.bytes): send less in one item`,
          this.maxBatchBytes,
        );
      }
      if (batch.length > 0 && bytes + size > this.maxBatchBytes) {
        batches.push(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(message);
      bytes += size;
    }
    if (batch.length > 0) batches.push(batch);
    return batches;
  }

  subscribe(topic: string, options: SubscribeOptions, handler: BatchHandler): KafkaSubscription {
    if (this.closed) throw new UnavailableError('the event queue is closed');
    if (!Number.isInteger(options.maxBatchSize) || options.maxBatchSize < 1) {
      throw new Error(`maxBatchSize must be a positive integer, got ${options.maxBatchSize}`);
    }
    const kafkaTopic = this.kafkaName(this.checkedTopic(topic));
    this.knownTopics.add(topic);
    const topics = this.groupTopics.get(options.group) ?? new Set<string>();
    topics.add(topic);
    this.groupTopics.set(options.group, topics);
    const subscription: KafkaSubscription = new KafkaSubscription({
      brokers: this.options.brokers,
      clientId: this.options.clientId,
      admin: this.admin,
      topic,
      kafkaTopic,
      groupId: this.kafkaName(options.group),
      options,
      handler,
      settings: this.consumerSettings,
      ensureTopic: () => this.topicCreator.ensure([kafkaTopic]),
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      ...(this.options.onHandlerError ? { onHandlerError: this.options.onHandlerError } : {}),
      onStopped: () => this.subscriptions.delete(subscription),
    });
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Per group, topic and partition: records after the group's committed offset. */
  async lag(): Promise<PartitionLag[]> {
    return withTimeout(this.readLag(), ADMIN_TIMEOUT_MS, 'reading the queue lag');
  }

  async ping(): Promise<void> {
    if (this.closed) throw new UnavailableError('the event queue is closed');
    await withTimeout(this.admin.metadata({ topics: [], forceUpdate: true }), PING_TIMEOUT_MS, 'a Kafka metadata request');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.producer.close(new UnavailableError('the event queue is shutting down: retry shortly'));
    await this.admin.close().catch(() => {});
  }

  private async readLag(): Promise<PartitionLag[]> {
    const topicsInUse = new Set<string>();
    for (const [, topics] of this.groupTopics) for (const t of topics.size > 0 ? topics : this.knownTopics) topicsInUse.add(t);
    const ranges = new Map<string, Awaited<ReturnType<typeof partitionRanges>>>();
    // A topic nobody created yet has no backlog. Any other failure is the read's: it used to be
    // taken for a missing topic too, so a broker outage emptied errata_queue_lag (its alerts
    // went quiet) instead of counting errata_queue_lag_read_errors_total and keeping the values.
    const existing = new Set(topicsInUse.size > 0 ? await this.admin.listTopics() : []);
    for (const topic of topicsInUse) {
      if (existing.has(this.kafkaName(topic))) ranges.set(topic, await partitionRanges(this.admin, this.kafkaName(topic)));
    }
    const out: PartitionLag[] = [];
    for (const [group, subscribed] of this.groupTopics) {
      const topics = [...(subscribed.size > 0 ? subscribed : this.knownTopics)].filter((t) => ranges.has(t));
      if (topics.length === 0) continue;
      const committed = await committedOffsets(
        this.admin,
        this.kafkaName(group),
        topics.map((t) => this.kafkaName(t)),
      );
      for (const topic of topics) {
        const positions = committed.get(this.kafkaName(topic));
        for (const range of ranges.get(topic)!) {
          out.push({ topic, partition: range.partition, group, lag: recordsBehind(range, positions?.get(range.partition)) });
        }
      }
    }
    return out;
  }

  private kafkaName(name: string): string {
    return `${this.prefix}${name}`;
  }

  /** Kafka's own rule for topic names, checked here so the mistake names the topic. */
  private checkedTopic(topic: string): string {
    const name = this.kafkaName(topic);
    if (!/^[A-Za-z0-9._-]{1,249}$/.test(name) || name === '.' || name === '..') {
      throw new Error(`"${name}" is not a valid Kafka topic name: use up to 249 letters, digits, ".", "_" or "-"`);
    }
    return topic;
  }
}
