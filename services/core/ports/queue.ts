// Queue port: ingest publishes accepted items, the dispatcher consumes them. Standalone uses a
// write-ahead file (adapters/local-queue), distributed uses Kafka; both give the same promises:
// publish resolves only once the records are durable, and a consumer's position advances only
// after its handler resolved, so a crash redelivers (handlers must be idempotent).

export interface QueueRecord {
  /**
   * Names the record. Records with the same key are delivered in order, unless published
   * `unordered`; different keys may run concurrently.
   */
  key: string;
  value: Buffer;
}

export interface PublishOptions {
  /**
   * The records need no order among themselves or with any other publish (every key is
   * unique, or each record is handled on its own), so the queue may place them where storing
   * them costs least: Kafka puts all such records of one produce request on one partition.
   */
  unordered?: boolean;
}

export interface DeliveredRecord extends QueueRecord {
  topic: string;
  partition: number;
  /** Position in the partition, as text so a 64-bit Kafka offset survives. */
  offset: string;
}

export interface SubscribeOptions {
  group: string;
  /** Upper bound of records per handler call. */
  maxBatchSize: number;
}

/** Resolves once every side effect of the batch is durable; throwing redelivers the batch. */
export type BatchHandler = (records: DeliveredRecord[]) => Promise<void>;

export interface Subscription {
  /**
   * Stop taking batches and resolve once the batch in hand is handled and committed. With
   * `drain`, first keep consuming until everything published so far is handled (or the
   * timeout passes) — the standalone server's "finish queued work" on SIGTERM.
   */
  stop(options?: { drain?: boolean; timeoutMs?: number }): Promise<void>;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  group: string;
  lag: number;
}

export interface Queue {
  /** A record's value is written as given, not copied: it must not change until this resolves. */
  publish(topic: string, records: QueueRecord[], options?: PublishOptions): Promise<void>;
  subscribe(topic: string, options: SubscribeOptions, handler: BatchHandler): Subscription;
  /** Records published but not yet committed, per consumer group and partition. */
  lag(): Promise<PartitionLag[]>;
  /** Ready to take publishes (the broker answers, the log is open). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
