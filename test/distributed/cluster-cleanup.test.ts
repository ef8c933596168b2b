// The test cluster leaves nothing behind on the shared servers: the broker kept every suite's
// topics (and every benchmark's events) until the runs of several sessions filled the machine's disk.
import { Admin } from '@platformatic/kafka';
import { expect, it } from 'vitest';
import { createCluster } from '../support/distributed-cluster.ts';
import { infraEnv } from '../support/infra-env.ts';

it('destroying a cluster deletes its Kafka topics and its ClickHouse database', async () => {
  const infra = infraEnv();
  const cluster = await createCluster({ infra, ingestProcesses: 1 });
  const prefix = cluster.env.ERRATA_KAFKA_TOPIC_PREFIX!;
  const admin = new Admin({ bootstrapBrokers: infra.ERRATA_KAFKA_BROKERS!.split(','), clientId: 'errata-test-cleanup-check' });
  let destroyed = false;
  try {
    await cluster.startIngest(0); // creates the topics
    const ours = async () => (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    expect((await ours()).length).toBeGreaterThan(0);
    destroyed = true;
    const { exitCodes } = await cluster.destroy();
    expect(exitCodes).toEqual([0]);
    await expect.poll(ours, { timeout: 15_000 }).toEqual([]);
    const databases = await fetch(`${infra.ERRATA_CLICKHOUSE_URL}/?query=${encodeURIComponent('SHOW DATABASES')}`);
    expect(databases.ok).toBe(true);
    expect((await databases.text()).split('\n')).not.toContain(cluster.clickhouseDatabase);
  } finally {
    await admin.close();
    if (!destroyed) await cluster.destroy();
  }
}, 120_000);
