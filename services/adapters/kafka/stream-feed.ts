// One consumer's records, from a @platformatic/kafka stream into partition lanes. Whenever the
// group assigns partitions again, the stream in use is set aside (its records ignored from that
// moment), its lanes finish the batches in hand, and a new stream starts from the commits they
// made: a stream's fetches in flight around a rejoin land after it re-read the commits, and
// its lanes would otherwise still hold records of partitions now elsewhere. The new stream is
// opened before the old one is closed, so the consumer never stops subscribing to the topic
// (which would rejoin the group).
import { ListOffsetTimestamps, type Consumer, type Message, type MessagesStream } from '@platformatic/kafka';
import type { SubscribeOptions } from '../../core/ports/queue.ts';
import { isKafkaError } from './kafka-error.ts';
import type { KafkaLogger } from './kafka-logging.ts';
import { PartitionLanes } from './partition-lanes.ts';

export type Fetched = Message<Buffer, Buffer, Buffer, Buffer>;

/** How long a fetch out of range with every commit in the log waits before the stream opens again. */
const OUT_OF_RANGE_RETRY_MS = 1_000;

interface FeedContext {
  topic: string;
  kafkaTopic: string;
  options: SubscribeOptions;
  logger?: KafkaLogger;
}

type Handle = (records: Fetched[], closing: AbortSignal) => Promise<boolean>;

interface Current {
  stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>;
  lanes: PartitionLanes<Fetched>;
  /** False once set aside: its records are ignored and its end is nobody's failure. */
  active: boolean;
}

export class StreamFeed {
  private current: Current | undefined;
  private switching: Promise<void> = Promise.resolve();
  /** A replacement is queued and has not started: later joins are served by it. */
  private queued = false;
  private closed = false;

  constructor(
    private readonly consumer: Consumer<Buffer, Buffer, Buffer, Buffer>,
    private readonly context: FeedContext,
    private readonly handle: Handle,
  ) {}

  /** Opens the first stream; consume() joins the group, and the stream reads what it assigned. */
  async start(onFailure: () => void): Promise<void> {
    this.switching = this.open(onFailure);
    await this.switching;
  }

  /** After a join: a new stream for the new assignment, once the old lanes' batches in hand are done. */
  restart(onFailure: () => void, before?: () => Promise<void>): void {
    // A join while the first stream is being opened: that stream is made after it, for its assignment.
    if (!this.current || this.closed) return;
    this.setAside(this.current);
    if (this.queued) return;
    this.queued = true;
    this.switching = this.switching
      .then(async () => {
        this.queued = false;
        // Whatever is current when this turn comes, which may be newer than at the join.
        const old = this.current!;
        this.setAside(old);
        await old.lanes.close();
        await before?.();
        if (!this.closed) await this.open(onFailure);
        await old.stream.close().catch(() => {});
      })
      .catch((error: unknown) => {
        this.context.logger?.warn({ err: error, topic: this.context.topic }, 'queue consumer could not open a new stream');
        onFailure();
      });
  }

  /** Waits for the batches in hand (they commit), then closes the stream. */
  async close(): Promise<void> {
    this.closed = true;
    await this.switching.catch(() => {});
    const current = this.current;
    if (!current) return;
    this.setAside(current);
    await current.lanes.close();
    await current.stream.close().catch(() => {});
  }

  private setAside(current: Current): void {
    current.active = false;
    current.stream.pause();
  }

  /**
   * A commit outside the log fails every fetch of its partition, and with it the fetch of every
   * partition on that broker; reading goes on from the oldest record kept. Older than the log's
   * start: the records after it were deleted by retention while no one read them (as kafkajs
   * did). Past the log's end: a broker lost records the commit covered (a disk replaced, an
   * unclean leader election), and where they ended is not known, so records written since would
   * be skipped from the end; read again from the start, what was handled before is found handled
   * (the pipelines are idempotent by id; events of issues deleted since are known as such until
   * retention forgets their ids). Before, such a stream was opened
   * again at the same commit, failed again, and looped unlogged.
   */
  private async moveCommitsIntoTheLog(): Promise<void> {
    const { kafkaTopic } = this.context;
    const assigned = this.consumer.assignments?.find((a) => a.topic === kafkaTopic)?.partitions ?? [];
    if (assigned.length === 0) return;
    const [earliest, latest, committed] = await Promise.all([
      this.consumer
        .listOffsets({ topics: [kafkaTopic], timestamp: ListOffsetTimestamps.EARLIEST })
        .then((o) => o.get(kafkaTopic) ?? []),
      this.consumer
        .listOffsets({ topics: [kafkaTopic], timestamp: ListOffsetTimestamps.LATEST })
        .then((o) => o.get(kafkaTopic) ?? []),
      this.consumer
        .listCommittedOffsets({ topics: [{ topic: kafkaTopic, partitions: assigned }] })
        .then((o) => o.get(kafkaTopic) ?? []),
    ]);
    const moved = assigned.flatMap((partition) => {
      const at = committed[partition] ?? -1n;
      if (at < 0n) return [];
      if (at < (earliest[partition] ?? 0n)) return [{ partition, offset: earliest[partition]!, from: at, why: 'deleted' }];
      const end = latest[partition];
      if (end !== undefined && at > end) return [{ partition, offset: earliest[partition] ?? 0n, from: at, why: 'lost' }];
      return [];
    });
    // Nothing to move (a leader that changed mid-fetch): the stream is opened again a second on,
    // not at once, which repeated at full speed while the condition lasted. (Ending the consumer
    // instead rebalanced the whole group twice a second: a join resets the subscription's backoff.)
    if (moved.length === 0) {
      this.context.logger?.warn({ topic: this.context.topic }, 'queue fetch out of range, though every commit is within the log');
      await new Promise((resolve) => setTimeout(resolve, OUT_OF_RANGE_RETRY_MS));
      return;
    }
    this.context.logger?.warn(
      {
        topic: this.context.topic,
        partitions: moved.map((m) => ({ partition: m.partition, from: String(m.from), to: String(m.offset), why: m.why })),
      },
      'queue commits outside the log moved to its oldest record kept: deleted, records removed before they were read; ' +
        "lost, a commit past the log's end (the broker lost records), so those kept are read again",
    );
    await this.consumer.commit({
      offsets: moved.map(({ partition, offset }) => ({ topic: kafkaTopic, partition, offset, leaderEpoch: -1 })),
    });
  }

  private async open(onFailure: () => void): Promise<void> {
    const { options, kafkaTopic, logger, topic } = this.context;
    const lanes = new PartitionLanes<Fetched>({
      maxBatchSize: options.maxBatchSize,
      handle: this.handle,
      commit: (lasts) => this.commit(lasts),
    });
    const stream = await this.consumer.consume({
      topics: [kafkaTopic],
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
      // Past this many buffered records the stream schedules no further fetch (one in flight
      // still lands whole).
      highWaterMark: options.maxBatchSize,
    });
    const current: Current = { stream, lanes, active: true };
    this.current = current;
    lanes.onPressure = (full) => {
      if (current.active) void (full ? stream.pause() : stream.resume());
    };
    stream.on('data', (record: Fetched) => {
      if (current.active) lanes.add(record.partition, record.offset, record);
    });
    stream.on('error', (error: unknown) => {
      if (!current.active) return;
      if (isKafkaError(error, 'OFFSET_OUT_OF_RANGE')) {
        this.restart(onFailure, () => this.moveCommitsIntoTheLog());
        return;
      }
      logger?.warn({ err: error, topic }, 'queue consumer stream failed');
      onFailure();
    });
    stream.on('close', () => {
      if (current.active) onFailure();
    });
  }

  /** Commits past each record, one per partition of a handled call. */
  private async commit(lasts: Fetched[]): Promise<void> {
    await Promise.all(
      lasts.map(async (last) => {
        try {
          await last.commit();
        } catch (error) {
          // Left uncommitted: whoever reads the partition next handles these records again.
          this.context.logger?.warn({ err: error, topic: this.context.topic, partition: last.partition }, 'queue commit failed');
        }
      }),
    );
  }
}
