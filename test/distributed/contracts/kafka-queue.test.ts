// The Kafka queue adapter against a real broker: the shared Queue contract, then what only a
// cluster has: topics created with the prefix and partition count, partitions shared and handed
// over within a consumer group, lag per partition, and a publish that fails fast when no broker
// answers. Every run uses a topic and group prefix of its own and deletes its topics afterwards.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin } from '@platformatic/kafka';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeQueueContract } from '../../../services/adapters/contracts/queue.contract.ts';
import {
  KafkaQueue,
  openKafkaQueue,
  type KafkaQueueOptions,
  type ProduceObservation,
} from '../../../services/adapters/kafka/kafka-queue.ts';
import { UnavailableError } from '../../../services/core/errors.ts';
import type { DeliveredRecord } from '../../../services/core/ports/queue.ts';
import { infraSetting } from '../../support/infra-env.ts';
import { deleteKafkaPrefix } from '../../support/kafka-cleanup.ts';

const prefix = `errata-test-${randomBytes(4).toString('hex')}.`;
const brokers = () => infraSetting('ERRATA_KAFKA_BROKERS').split(',');
const options = (extra: Partial<KafkaQueueOptions> = {}): KafkaQueueOptions => ({
  brokers: brokers(),
  clientId: 'errata-test',
  topicPrefix: prefix,
  lagGroups: [],
  ...extra,
});

let admin: Admin;
beforeAll(async () => {
  admin = new Admin({ bootstrapBrokers: brokers(), clientId: 'errata-test-admin' });
});
afterAll(async () => {
  try {
    await deleteKafkaPrefix(admin, prefix);
  } finally {
    await admin.close();
  }
});

describeQueueContract('Kafka', () => openKafkaQueue(options()));

describe('KafkaQueue on a broker', () => {
  const opened: KafkaQueue[] = [];
  async function open(extra: Partial<KafkaQueueOptions> = {}): Promise<KafkaQueue> {
    const queue = await openKafkaQueue(options(extra));
    opened.push(queue);
    return queue;
  }
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
  });

  const topic = () => `test.${randomUUID().slice(0, 8)}`;
  const keyed = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({ key: `${tag}-${i}`, value: Buffer.from(`${tag}-${i}`) }));

  async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  it('creates its topics with the prefix and partition count, and delivers them without the prefix', async () => {
    const own = `${prefix}created-${randomBytes(2).toString('hex')}.`;
    const produced: ProduceObservation[] = [];
    const q = await open({
      topicPrefix: own,
      topics: ['events.received', 'logs.received'],
      partitions: 3,
      observe: { produce: (o) => void produced.push(o) },
    });
    const created = await admin.metadata({ topics: [`${own}events.received`, `${own}logs.received`] });
    expect([...created.topics].map(([name, t]) => [name, t.partitionsCount]).sort()).toEqual([
      [`${own}events.received`, 3],
      [`${own}logs.received`, 3],
    ]);

    // A topic it was not told about is created on first publish, the same way.
    await q.publish('later.topic', [{ key: 'k', value: Buffer.from('v') }]);
    expect(produced).toMatchObject([{ topic: 'later.topic', records: 1 }]);
    expect(produced[0]!.error).toBeUndefined();
    const later = await admin.metadata({ topics: [`${own}later.topic`] });
    expect(later.topics.get(`${own}later.topic`)!.partitionsCount).toBe(3);
    const seen: DeliveredRecord[] = [];
    const subscription = q.subscribe('later.topic', { group: 'g', maxBatchSize: 10 }, async (batch) => void seen.push(...batch));
    await until(() => seen.length === 1, 'the record');
    await subscription.stop();
    expect(seen[0]!.topic).toBe('later.topic');
    expect((await q.lag()).filter((l) => l.group === 'g').map((l) => l.topic)).toEqual([
      'later.topic',
      'later.topic',
      'later.topic',
    ]);
  });

  it('opens alongside other processes creating the same topics at the same moment', async () => {
    // Each lists the topics before any has created them; all but one are told they exist.
    const own = `${prefix}racing-${randomBytes(2).toString('hex')}.`;
    const queues = await Promise.all(
      Array.from({ length: 4 }, () => open({ topicPrefix: own, topics: ['events.received', 'logs.received'], partitions: 2 })),
    );
    await Promise.all(queues.map((q, i) => q.publish('events.received', keyed(1, `q${i}`))));
    const created = await admin.metadata({ topics: [`${own}events.received`, `${own}logs.received`] });
    expect([...created.topics.values()].map((t) => t.partitionsCount)).toEqual([2, 2]);
  });

  it('gives each subscription of one group all partitions of its own topic, as the dispatcher subscribes', async () => {
    const q = await open();
    const [events, logs] = [topic(), topic()];
    await q.publish(events, keyed(30, 'e'));
    await q.publish(logs, keyed(30, 'l'));
    const seen: Record<string, string[]> = { [events]: [], [logs]: [] };
    const handler = async (batch: DeliveredRecord[]) => {
      for (const r of batch) seen[r.topic]!.push(r.value.toString());
    };
    const subscriptions = [
      q.subscribe(events, { group: 'dispatch', maxBatchSize: 5 }, handler),
      q.subscribe(logs, { group: 'dispatch', maxBatchSize: 5 }, handler),
    ];
    await until(() => seen[events]!.length === 30 && seen[logs]!.length === 30, 'both topics');
    expect(subscriptions.map((s) => s.assignment().length)).toEqual([8, 8]);
    await Promise.all(subscriptions.map((s) => s.stop()));
  });

  /** Two queue instances (two processes, as far as the broker knows) in one group. */
  async function twoMembers(t: string) {
    const handled: Array<{ by: string; record: DeliveredRecord }> = [];
    const member = async (by: string) => {
      const q = await open();
      return q.subscribe(t, { group: 'shared', maxBatchSize: 10 }, async (batch) => {
        for (const record of batch) handled.push({ by, record });
      });
    };
    const a = await member('a');
    const b = await member('b');
    await until(() => a.assignment().length === 4 && b.assignment().length === 4, 'an even split of the 8 partitions');
    return { a, b, handled, publisher: await open() };
  }

  it('splits a group’s partitions between two queue instances, each record handled once', async () => {
    const t = topic();
    const { a, b, handled, publisher } = await twoMembers(t);
    expect([...a.assignment(), ...b.assignment()].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await publisher.publish(t, keyed(200, 'r'));
    await until(() => handled.length >= 200, 'every record');
    await sleep(1_000); // anything handled twice would show up by now
    const values = handled.map((h) => h.record.value.toString());
    expect(values).toHaveLength(200);
    expect(new Set(values).size).toBe(200);
    for (const { by, record } of handled) expect((by === 'a' ? a : b).assignment()).toContain(record.partition);
    expect(handled.some((h) => h.by === 'a') && handled.some((h) => h.by === 'b')).toBe(true);
  });

  it('hands the partitions of a member that stops to the rest of the group', async () => {
    const t = topic();
    const { a, b, handled, publisher } = await twoMembers(t);
    await publisher.publish(t, keyed(50, 'before'));
    await until(() => handled.length >= 50, 'the first records');
    await a.stop();
    await until(() => b.assignment().length === 8, 'b to hold every partition');
    await publisher.publish(t, keyed(100, 'after'));
    await until(() => handled.filter((h) => h.record.value.toString().startsWith('after')).length >= 100, 'the later records');
    const after = handled.filter((h) => h.record.value.toString().startsWith('after'));
    expect(after.every((h) => h.by === 'b')).toBe(true);
    expect(new Set(after.map((h) => h.record.partition)).size).toBeGreaterThan(4);
    expect(new Set(after.map((h) => h.record.value.toString())).size).toBe(100);
  });

  it('puts the unordered records of a produce request on one partition, and the next request’s on the next', async () => {
    const q = await open();
    const t = topic();
    // Each publish is awaited, so each is a request of its own; 30 keys hash to most of 8 partitions.
    await q.publish(t, keyed(30, 'by-key'));
    await q.publish(t, keyed(30, 'first'), { unordered: true });
    await q.publish(t, keyed(30, 'second'), { unordered: true });
    const seen: DeliveredRecord[] = [];
    const subscription = q.subscribe(t, { group: 'placement', maxBatchSize: 100 }, async (batch) => void seen.push(...batch));
    await until(() => seen.length === 90, 'every record');
    await subscription.stop();
    const partitionsOf = (tag: string) => [...new Set(seen.filter((r) => r.key.startsWith(`${tag}-`)).map((r) => r.partition))];
    expect(partitionsOf('by-key').length).toBeGreaterThan(1);
    const [first, second] = [partitionsOf('first'), partitionsOf('second')];
    expect(first).toHaveLength(1);
    expect(second).toEqual([(first[0]! + 1) % 8]);
  });

  it('stores one publish larger than a record batch may be, in several, and refuses a record no batch holds', async () => {
    // Topics of 1 MiB records; 5 records of 300 KiB are one publish of 1.5 MiB. Before, it went
    // as one record batch, which the broker refused every time, and each refusal restarted the producer.
    const q = await open({ maxMessageBytes: 1024 * 1024 });
    const t = topic();
    const records = Array.from({ length: 5 }, (_, i) => ({ key: `big-${i}`, value: Buffer.alloc(300 * 1024, 97 + i) }));
    await q.publish(t, records, { unordered: true });
    const seen: DeliveredRecord[] = [];
    const subscription = q.subscribe(t, { group: 'large', maxBatchSize: 10 }, async (batch) => void seen.push(...batch));
    await until(() => seen.length === 5, 'every record');
    await subscription.stop();
    expect(seen.map((r) => r.key).sort()).toEqual(records.map((r) => r.key));
    expect(seen.every((r) => r.value.length === 300 * 1024)).toBe(true);
    expect(new Set(seen.map((r) => r.partition)).size).toBeGreaterThan(1);
    await expect(q.publish(t, [{ key: 'huge', value: Buffer.alloc(1024 * 1024) }], { unordered: true })).rejects.toThrow(
      /a test\.[0-9a-f]{8} record of 1048576 bytes is more than the queue's topics take/,
    );
  });

  it('reports the lag of every partition', async () => {
    const q = await open();
    const t = topic();
    // Learn where each key lands, then leave a known number of records behind per partition.
    await q.publish(t, keyed(12, 'k'));
    const partitionOf = new Map<string, number>();
    const learning = q.subscribe(t, { group: 'lagging', maxBatchSize: 50 }, async (batch) => {
      for (const r of batch) partitionOf.set(r.key, r.partition);
    });
    await until(() => partitionOf.size === 12, 'the first records');
    await learning.stop();
    const expected = new Array<number>(8).fill(0);
    const behind = [...partitionOf].flatMap(([key, partition], i) => {
      expected[partition]! += (i % 3) + 1;
      return Array.from({ length: (i % 3) + 1 }, () => ({ key, value: Buffer.from('later') }));
    });
    await q.publish(t, behind);
    const lag = (await q.lag()).filter((l) => l.topic === t && l.group === 'lagging').sort((x, y) => x.partition - y.partition);
    expect(lag.map((l) => l.partition)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(lag.map((l) => l.lag)).toEqual(expected);
  });

  it('starts produce requests at least the interval apart: publishes within it ride together', async () => {
    const q = await open({ produceIntervalMs: 2_000 });
    const t = topic();
    await q.publish(t, keyed(1, 'creates the topic'));
    await q.publish(t, keyed(1, 'first'));
    // The producer is idle now, but its last request started under two seconds ago: the next
    // publish waits out the rest of them, and one made meanwhile joins it.
    const acknowledged: string[] = [];
    let laterTurn = false;
    const second = q.publish(t, keyed(1, 'second')).then(() => {
      acknowledged.push('second');
      setImmediate(() => (laterTurn = true));
    });
    await sleep(50);
    const third = q.publish(t, keyed(1, 'third')).then(() => acknowledged.push(laterTurn ? 'third, later' : 'third'));
    await Promise.all([second, third]);
    // Answered in one turn, so by one request; sent apart, the third would be answered later.
    expect(acknowledged).toEqual(['second', 'third']);
  });

  it('keeps its partitions through a handler call longer than the session timeout', async () => {
    const q = await open({ sessionTimeoutMs: 6_000 });
    const t = topic();
    await q.publish(t, keyed(20, 'slow'));
    const seen: string[] = [];
    let calls = 0;
    const subscription = q.subscribe(t, { group: 'slow', maxBatchSize: 100 }, async (batch) => {
      if (calls++ === 0) await sleep(9_000);
      seen.push(...batch.map((r) => r.value.toString()));
    });
    await until(() => seen.length >= 20, 'every record');
    await sleep(1_000);
    await subscription.stop();
    // Dropped from the group, the member's commit would fail and the records would come again.
    expect(seen).toHaveLength(20);
  });

  it('reads on from the oldest record kept when the group committed before records deleted unread', async () => {
    const q = await open({ partitions: 1 });
    const t = topic();
    await q.publish(t, keyed(3, 'read'));
    const seen: string[] = [];
    const first = q.subscribe(
      t,
      { group: 'behind', maxBatchSize: 10 },
      async (batch) => void seen.push(...batch.map((r) => r.value.toString())),
    );
    await until(() => seen.length === 3, 'the first records');
    await first.stop();
    // Retention deleting what nobody read yet: the group's commit (3) falls before the log's start (5).
    await q.publish(t, keyed(2, 'deleted'));
    await admin.deleteRecords({ topics: [{ name: `${prefix}${t}`, partitions: [{ partition: 0, offset: 5n }] }] });
    await q.publish(t, keyed(2, 'kept'));
    const second = q.subscribe(
      t,
      { group: 'behind', maxBatchSize: 10 },
      async (batch) => void seen.push(...batch.map((r) => r.value.toString())),
    );
    await until(() => seen.length === 5, 'the records kept');
    await second.stop();
    expect(seen).toEqual(['read-0', 'read-1', 'read-2', 'kept-0', 'kept-1']);
  });

  it("reads again from the oldest record kept when the group committed past the log's end (the broker lost records)", async () => {
    const q = await open({ partitions: 1 });
    const t = topic();
    await q.publish(t, keyed(3, 'read'));
    const seen: string[] = [];
    const subscribe = () =>
      q.subscribe(
        t,
        { group: 'ahead', maxBatchSize: 10 },
        async (batch) => void seen.push(...batch.map((r) => r.value.toString())),
      );
    const first = subscribe();
    await until(() => seen.length === 3, 'the first records');
    await first.stop();
    // A log shorter than the commit (a replaced disk, an unclean leader election), and records
    // written since: where the lost ones ended is not known, so none of these may be skipped.
    await admin.alterConsumerGroupOffsets({
      groupId: `${prefix}ahead`,
      topics: [{ name: `${prefix}${t}`, partitionOffsets: [{ partition: 0, offset: 1_000n }] }],
    });
    await q.publish(t, keyed(2, 'after'));
    const second = subscribe();
    await until(() => seen.length === 8, 'the records kept, again');
    await second.stop();
    expect(seen).toEqual(['read-0', 'read-1', 'read-2', 'read-0', 'read-1', 'read-2', 'after-0', 'after-1']);
  });

  it('fails to open, rather than hangs, when a broker accepts connections but never answers', { timeout: 20_000 }, async () => {
    // The client's own request timeout is 30 s unless set: this fails within the adapter's 5 s.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      await expect(openKafkaQueue({ brokers: [`127.0.0.1:${port}`], clientId: 'errata-test' })).rejects.toThrow();
    } finally {
      silent.close();
    }
  });

  it(
    'rejects a publish and a lag read when no broker answers, instead of waiting or reading no backlog',
    { timeout: 30_000 },
    async () => {
      const port = await closedPort();
      const produced: ProduceObservation[] = [];
      const q = new KafkaQueue({
        brokers: [`127.0.0.1:${port}`],
        clientId: 'errata-test',
        produceTimeoutMs: 2_000,
        observe: { produce: (o) => void produced.push(o) },
      });
      await expect(q.publish('events.received', [{ key: 'k', value: Buffer.from('v') }])).rejects.toBeInstanceOf(
        UnavailableError,
      );
      expect(produced).toMatchObject([{ topic: 'events.received', records: 1 }]);
      expect(produced[0]!.error).toBeDefined();
      await expect(q.ping()).rejects.toThrow();
      // Not "no backlog": the lag could not be read (errata_queue_lag_read_errors_total counts it).
      await expect(q.lag()).rejects.toThrow();
      await q.close();
      await expect(openKafkaQueue({ brokers: [`127.0.0.1:${port}`], clientId: 'errata-test' })).rejects.toThrow();
    },
  );
});

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
