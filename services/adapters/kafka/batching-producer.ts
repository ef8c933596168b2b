// The publishing half of the Kafka queue (ingest → broker). One idempotent producer, acks from
// every in-sync replica, fed by a single-flight loop: publishes arriving while a request is in
// flight ride together in the next one, so concurrent HTTP requests share round trips and a
// key's records keep their order. Requests also start at least a few milliseconds apart, so
// that a steady rate of requests shares them too (see minRequestIntervalMs). Each publish has a
// deadline, so an outage becomes a prompt rejection (503 at ingest) rather than a hung request.
// Records that need no order go to one partition per request, the next partition with each
// request (as Kafka's own clients place records without a key, KIP-480), rather than one
// record batch for every partition their keys hash to: at 1,000 events/s the broker spent
// 0.20 core-ms per event against 0.23 and ingest answered 0.8 ms sooner at the median
// (docs/benchmarks.md, "2026-12-03 (second)").
// The producer is @platformatic/kafka's: it encodes records with a third of the CPU of kafkajs
// (the client used before), and encoding was 40% of ingest's CPU.
import { setTimeout as delay } from 'node:timers/promises';
import { Producer } from '@platformatic/kafka';

interface Message {
  key: string;
  value: Buffer;
}

interface ProducerSettings {
  clientId: string;
  brokers: string[];
  /** Connection and request timeout of the client. */
  timeoutMs: number;
}

interface BatchingProducerOptions {
  /** Broker-side wait for the in-sync replicas' acknowledgement. */
  ackTimeoutMs: number;
  /** Publishes are combined into one request up to this many value bytes (one is always sent alone if larger). */
  maxRequestBytes: number;
  /**
   * Least time from one request's start to the next one's: a publish arriving sooner after a
   * request started waits out the rest and rides with whatever else arrives meanwhile; one after
   * a quiet spell goes at once.
   */
  minRequestIntervalMs: number;
  /** A request failed; every publish in it was rejected and the producer starts over. */
  onSendError?: (error: unknown) => void;
}

interface Pending {
  topic: string;
  messages: Message[];
  /** Placed on the request's partition rather than by key. */
  unordered: boolean;
  bytes: number;
  settled: boolean;
  timer: NodeJS.Timeout;
  settle(error?: unknown): void;
}

export class ProduceTimeoutError extends Error {
  constructor(ms: number) {
    super(`the broker did not acknowledge the records within ${ms} ms`);
    this.name = 'ProduceTimeoutError';
  }
}

export class BatchingProducer {
  private producer: Producer<Buffer, Buffer, Buffer, Buffer> | undefined;
  private readonly pending: Pending[] = [];
  private active = false;
  private idle: Promise<void> = Promise.resolve();
  /** performance.now() when the last request started. */
  private lastStarted = -Infinity;
  /** Requests started: the partition of the next one's unordered records, modulo the topic's partitions. */
  private requestsStarted = 0;

  constructor(
    private readonly settings: ProducerSettings,
    private readonly options: BatchingProducerOptions,
  ) {}

  /** Connects now (and obtains a producer id), so start-up fails when the broker does not answer. */
  async connect(): Promise<void> {
    await this.ready();
  }

  /**
   * Resolves once the broker acknowledged every record; rejects after `timeoutMs` at the latest.
   * `unordered` records may go to any partition; the others go where their key hashes to.
   */
  send(topic: string, messages: Message[], timeoutMs: number, unordered = false): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push(pendingPublish(topic, messages, unordered, timeoutMs, resolve, reject));
      if (!this.active) {
        this.active = true;
        this.idle = this.drainPending();
      }
    });
  }

  /** Waits for the request in flight, rejects what was never sent, and disconnects. */
  async close(reason: Error): Promise<void> {
    for (const entry of this.pending.splice(0)) entry.settle(reason);
    await this.idle;
    await this.reset();
  }

  private async drainPending(): Promise<void> {
    for (;;) {
      // Nothing waits: idle at once (close() then has no spacing to wait out). take() drops
      // publishes answered meanwhile (timed out).
      if (this.pending.length === 0) break;
      // Timers may fire up to a millisecond early: wait again for what is left.
      for (let wait = this.waitBeforeNext(); wait > 0; wait = this.waitBeforeNext()) await delay(Math.ceil(wait));
      const batch = this.take();
      if (batch.length === 0) break;
      await this.sendTogether(batch);
    }
    // Cleared in the same turn as the check for work, so no publish can be left waiting.
    this.active = false;
  }

  private waitBeforeNext(): number {
    return this.lastStarted + this.options.minRequestIntervalMs - performance.now();
  }

  /** Never throws: every publish in the batch is answered either way. */
  private async sendTogether(batch: Pending[]): Promise<void> {
    this.lastStarted = performance.now();
    // @platformatic/kafka takes an explicit partition modulo the topic's partition count.
    const partition = this.requestsStarted++;
    try {
      const producer = await this.ready();
      // A publish whose deadline passed while connecting was answered already: do not store it.
      const live = batch.filter((entry) => !entry.settled);
      if (live.length === 0) return;
      await producer.send({
        messages: live.flatMap((entry) =>
          entry.messages.map((m) => ({
            topic: entry.topic,
            key: Buffer.from(m.key),
            value: m.value,
            ...(entry.unordered ? { partition } : {}),
          })),
        ),
      });
      for (const entry of live) entry.settle();
    } catch (error) {
      for (const entry of batch) entry.settle(error);
      this.options.onSendError?.(error);
      // After a failed request the broker may or may not hold its records. The idempotent
      // producer would reuse their sequence numbers for the next records, which the broker
      // could then discard as duplicates while acknowledging them; a new producer id cannot.
      await this.reset();
    }
  }

  /** The oldest publishes still waiting, up to the request size; answered ones are dropped. */
  private take(): Pending[] {
    const batch: Pending[] = [];
    let bytes = 0;
    while (this.pending.length > 0) {
      const next = this.pending[0]!;
      if (next.settled) {
        this.pending.shift();
        continue;
      }
      if (batch.length > 0 && bytes + next.bytes > this.options.maxRequestBytes) break;
      batch.push(this.pending.shift()!);
      bytes += next.bytes;
    }
    return batch;
  }

  private async ready(): Promise<Producer<Buffer, Buffer, Buffer, Buffer>> {
    if (this.producer) return this.producer;
    const producer = new Producer<Buffer, Buffer, Buffer, Buffer>({
      clientId: this.settings.clientId,
      bootstrapBrokers: this.settings.brokers,
      idempotent: true,
      acks: -1,
      autocreateTopics: false,
      // Bounded, so an outage fails the publish instead of retrying forever.
      timeout: this.settings.timeoutMs,
      connectTimeout: Math.min(3_000, this.settings.timeoutMs),
      retries: 3,
      retryDelay: 100,
    });
    try {
      // Obtains the producer id now, so start-up fails when the broker does not answer.
      await producer.initIdempotentProducer({});
    } catch (error) {
      await closeQuietly(producer);
      throw error;
    }
    this.producer = producer;
    return producer;
  }

  private async reset(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer) await closeQuietly(producer);
  }
}

/**
 * A publish waiting to be sent, answered at its deadline at the latest. Made here, apart from
 * send(), so that no closure it keeps holds the records but the entry itself: a publish answered
 * at its deadline (503 at ingest, which lets go of the request's memory budget) drops them while
 * it still waits, in the queue or in a batch whose producer is still connecting to a broker that
 * does not answer. They stayed in memory beyond ERRATA_INGEST_MEMORY_BYTES until that attempt
 * failed. Records already in a request sent are the client's until the request ends (at most
 * maxRequestBytes, or one larger publish).
 */
function pendingPublish(
  topic: string,
  messages: Message[],
  unordered: boolean,
  timeoutMs: number,
  resolve: () => void,
  reject: (error: unknown) => void,
): Pending {
  const entry: Pending = {
    topic,
    messages,
    unordered,
    bytes: messages.reduce((sum, m) => sum + byteLength(m.value) + byteLength(m.key), 0),
    settled: false,
    timer: setTimeout(() => {
      entry.messages = [];
      entry.settle(new ProduceTimeoutError(timeoutMs));
    }, timeoutMs),
    settle(error?: unknown) {
      if (entry.settled) return;
      entry.settled = true;
      clearTimeout(entry.timer);
      if (error === undefined) resolve();
      else reject(error);
    },
  };
  return entry;
}

function byteLength(value: string | Buffer): number {
  return typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}

/** Closes at once (requests in flight are abandoned) and never throws: the producer is being replaced. */
function closeQuietly(producer: Producer<Buffer, Buffer, Buffer, Buffer>): Promise<void> {
  return new Promise((resolve) => producer.close(true, () => resolve()));
}
