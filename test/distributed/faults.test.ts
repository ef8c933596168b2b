// Accepted means durable, in the distributed mode too: every event ingest acknowledged with 200
// is stored exactly once and counted exactly once, when a dispatcher is killed with SIGKILL in
// the middle of a burst, when an ingest is killed right after acknowledging, and when the
// Kafka broker stops and restarts under load. Counts are read through the read API and from
// the stores themselves (issue counts in Postgres, distinct events in ClickHouse).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFullCluster, type Cluster } from '../support/distributed-cluster.ts';
import { infraEnv } from '../support/infra-env.ts';
import { restartServers, stopServer } from '../support/infra-servers.ts';
import { listIssues } from '../support/issues.ts';
import { metricTotal } from '../support/metrics.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import type { RoleProcess } from '../support/role-process.ts';
import { eventually, type Provisioned } from '../support/standalone-server.ts';

let cluster: Cluster;
let mcp: RoleProcess;
let ingests: RoleProcess[];
let dispatchers: RoleProcess[];
let p: Provisioned;

beforeAll(async () => {
  ({ cluster, ingests, dispatchers, mcp, p } = await startFullCluster(infraEnv(), 'Faults'));
});
afterAll(async () => {
  await cluster?.destroy();
});

interface BurstResult {
  acknowledged: string[];
  statuses: Map<number, number>;
}

/**
 * Sends `count` events, `concurrency` at a time, through the shared ingest address, over 5
 * fingerprints named after `tag`. Failed requests (503, connection reset) are not retried: only
 * ids answered 200 are acknowledged. `during` runs alongside, given the running ack count;
 * sending goes on until it finishes, even past `count`.
 */
async function burst(tag: string, count: number, during?: (acked: () => number) => Promise<void>): Promise<BurstResult> {
  const url = `${cluster.ingest.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`;
  const acknowledged: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  let duringDone = !during;
  const senders = Array.from({ length: 12 }, async () => {
    while (next < count || !duringDone) {
      const n = next++;
      const eventId = randomUUID().replace(/-/g, '');
      const body = eventEnvelope({ event_id: eventId, message: `${tag} ${n % 5}`, fingerprint: [`${tag}-${n % 5}`] });
      const response = await rawRequest(url, { body, headers: { connection: 'close' } }).catch(() => undefined);
      const status = response?.status ?? 0;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 200) acknowledged.push(eventId);
      // While a part is down, requests fail fast; pace them so the burst spans the outage.
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  await Promise.all([
    ...senders,
    during?.(() => acknowledged.length).finally(() => {
      duringDone = true;
    }),
  ]);
  return { acknowledged, statuses };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
};

/** Every acknowledged id is stored once, and the issues count exactly the stored events. */
async function expectExactlyOnce(tag: string, acknowledged: string[]): Promise<void> {
  const stored = await eventually(
    async () => {
      const rows = await cluster.clickhouse<{ event_id: string }>(
        `SELECT DISTINCT event_id FROM events WHERE project_id = ${p.projectId} AND title LIKE '${tag} %'`,
      );
      const ids = new Set(rows.map((r) => r.event_id));
      const issues = (await listIssues(mcp, p, `status=all&limit=100&query=${tag}`)).filter((i) => i.title.startsWith(tag));
      const counted = issues.reduce((sum, issue) => sum + issue.count, 0);
      return acknowledged.every((id) => ids.has(id)) && counted === ids.size ? { ids, counted, issues } : undefined;
    },
    `all ${acknowledged.length} acknowledged "${tag}" events stored and counted`,
    120_000,
  );
  expect(stored.issues).toHaveLength(5);
  // Nothing counted twice: each stored event is one count.
  expect(stored.counted).toBe(stored.ids.size);
}

describe('faults in the distributed mode', () => {
  it('kill -9 of a dispatcher in the middle of a burst, then a new one: every acknowledged event exactly once', async () => {
    const { acknowledged, statuses } = await burst('Dispatcher-kill', 600, async (acked) => {
      await until(() => acked() >= 200);
      await dispatchers[0]!.kill();
      await until(() => acked() >= 400);
      dispatchers[0] = await cluster.start('dispatcher');
    });
    // Ingest never noticed: every request was acknowledged.
    expect([...statuses.keys()]).toEqual([200]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(600);
    await expectExactlyOnce('Dispatcher-kill', acknowledged);
  });

  it('kill -9 of an ingest right after it acknowledged: every acknowledged event exactly once', async () => {
    const { acknowledged, statuses } = await burst('Ingest-kill', 600, async (acked) => {
      await until(() => acked() >= 150);
      await ingests[0]!.kill();
      await until(() => acked() >= 350);
      ingests[0] = await cluster.startIngest(0);
    });
    // The other ingest took over behind the same address; requests cut off by the kill failed.
    expect(acknowledged.length).toBeGreaterThan(550);
    expect([...statuses.keys()].every((s) => s === 200 || s === 0 || s === 503)).toBe(true);
    await expectExactlyOnce('Ingest-kill', acknowledged);
  });

  it('the Kafka broker stopped and restarted under load: 503 meanwhile, every acknowledged event exactly once', async () => {
    let healthDuringOutage = 0;
    let metricsDuringOutage = 0;
    const { acknowledged, statuses } = await burst('Broker-restart', 400, async (acked) => {
      await until(() => acked() >= 200);
      await stopServer('kafka', 'SIGTERM');
      healthDuringOutage = await eventually(async () => {
        const status = (await fetch(`${ingests[1]!.url}/healthz`)).status;
        return status === 503 ? status : undefined;
      }, 'ingest /healthz to report the broker down');
      // The dispatcher's metrics are served all the same (consumer lag cannot be read now).
      const metrics = await fetch(`${dispatchers[1]!.url}/metrics`);
      metricsDuringOutage = metrics.status;
      expect(await metrics.text()).toContain('errata_pipeline_processed_total');
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await restartServers();
      const before = acked();
      await until(() => acked() >= before + 100);
    });
    expect(healthDuringOutage).toBe(503);
    expect(metricsDuringOutage).toBe(200);
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
    expect([...statuses.keys()].every((s) => s === 200 || s === 503)).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(300);
    await expectExactlyOnce('Broker-restart', acknowledged);
    // Ingest and the dispatchers reconnected by themselves.
    for (const role of [...ingests, ...dispatchers]) expect((await fetch(`${role.url}/healthz`)).status).toBe(200);
  });

  // The stores going away: ingest goes on accepting (it needs neither), the dispatchers hold
  // their offsets and retry until the store is back; nothing acknowledged is passed over.
  for (const [server, signal, tag] of [
    ['postgres', 'SIGINT', 'Postgres-restart'],
    ['clickhouse', 'SIGTERM', 'ClickHouse-restart'],
  ] as const) {
    it(`${server} stopped and restarted under load: ingest keeps accepting, every acknowledged event exactly once`, async () => {
      let dispatcherHealth = 0;
      const { acknowledged, statuses } = await burst(tag, 400, async (acked) => {
        await until(() => acked() >= 100);
        await stopServer(server, signal);
        dispatcherHealth = await eventually(async () => {
          const status = (await fetch(`${dispatchers[0]!.url}/healthz`)).status;
          return status === 503 ? status : undefined;
        }, `the dispatcher's /healthz to report ${server} down`);
        const during = acked();
        await until(() => acked() >= during + 100);
        await restartServers();
      });
      expect(dispatcherHealth).toBe(503);
      expect([...statuses.keys()]).toEqual([200]);
      await expectExactlyOnce(tag, acknowledged);
      const passedOver = await Promise.all(
        dispatchers.map((d) => metricTotal(d, 'errata_outcomes_total', { reason: 'processing_failed' })),
      );
      expect(passedOver).toEqual([0, 0]);
    });
  }
});
