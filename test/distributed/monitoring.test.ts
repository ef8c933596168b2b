// The shipped rules and dashboard against a real Prometheus (built from the Go module proxy by
// test/setup/provision.sh) scraping the real roles on loopback, under steady SDK traffic:
// every series that a rule or a dashboard panel reads exists with the labels they use, every
// recording rule and every panel query returns data, and alerts fire for real faults and
// resolve once the faults are undone: the dispatchers stopped (ErrataDispatcherNotConsuming),
// ClickHouse stopped for 70 s (ErrataEventsWaitingTooLong for the events stored late) and a
// channel whose receiver answers 500 (ErrataWebhookDeliveriesFailing).
// The rules are the shipped file with its time scaled down (each `for` to 2 s, rate windows of
// 5 and 10 minutes to 15 and 30 s, against a 1 s scrape) so a fault shows in seconds; every
// expression is otherwise the shipped one. The operator's series are checked by the operator
// suite (test/operator/monitoring.test.ts), which has the API server the operator needs.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { dashboardQueries } from '../../charts/errata/monitoring/dashboard-queries.ts';
import { startFullCluster, type FullCluster } from '../support/distributed-cluster.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.ts';
import { infraEnv } from '../support/infra-env.ts';
import { restartServers, stopServer } from '../support/infra-servers.ts';
import { startPrometheus, type PrometheusServer } from '../support/prometheus-server.ts';
import { apiRequest, eventually, REPO_ROOT } from '../support/standalone-server.ts';

const RULES_FILE = join(REPO_ROOT, 'charts', 'errata', 'monitoring', 'errata-rules.yaml');

/**
 * The labels each metric that the rules or the dashboard read must carry (besides job and
 * instance, which the scrape adds). A rule or panel over a metric missing here fails the test,
 * so a new one is checked from the start.
 */
const EXPECTED_LABELS: Record<string, string[]> = {
  errata_build_info: ['version', 'role'],
  errata_ingest_accepted_total: ['category', 'project_id'],
  errata_pipeline_processed_total: ['category', 'project_id'],
  errata_outcomes_total: ['stage', 'reason', 'category'],
  errata_http_requests_total: ['route', 'method', 'status'],
  errata_pipeline_event_age_seconds_bucket: ['le'],
  errata_queue_lag: ['topic', 'partition', 'group'],
  errata_process_cpu_seconds_total: [],
  errata_process_resident_memory_bytes: [],
  errata_webhook_delivery_attempts_total: ['verdict'],
  errata_webhook_deliveries_held_total: [],
  errata_sourcemap_loads_total: ['result'],
  errata_store_write_errors_total: ['store'],
  errata_pipeline_batch_errors_total: ['topic'],
  errata_retention_last_success_timestamp_seconds: [],
};
/** Only the operator serves these; the operator suite checks them. */
const fromOperator = (name: string) => name.startsWith('errata_operator_');

function scaledRules(text: string): string {
  return text
    .replace(/^(\s+for: )\d+[smh]$/gm, '$12s')
    .replaceAll('[5m]', '[15s]')
    .replaceAll('[10m]', '[30s]');
}

let full: FullCluster;
let prometheus: PrometheusServer;
let receiver: HttpsReceiver;
let caDir: string;
let traffic: { stop(): Promise<void>; sent(): number };

/** SDK traffic as long as the suite runs: an error event (each its own issue) and a transaction (not stored: an outcome) every 100 ms. */
function startTraffic(): { stop(): Promise<void>; sent(): number } {
  const { projectId, publicKey } = full.p;
  const base = `${full.cluster.ingest.url}/api/${projectId}`;
  let stopped = false;
  let sent = 0;
  const loop = (async () => {
    while (!stopped) {
      const message = `monitored ${randomBytes(6).toString('hex')}`;
      const event = { event_id: randomBytes(16).toString('hex'), platform: 'node', level: 'error', message };
      await fetch(`${base}/store/?sentry_key=${publicKey}`, { method: 'POST', body: JSON.stringify(event) }).catch(() => {});
      const envelope = `{}\n${JSON.stringify({ type: 'transaction', length: 2 })}\n{}\n`;
      await fetch(`${base}/envelope/?sentry_key=${publicKey}`, { method: 'POST', body: envelope }).catch(() => {});
      sent++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
    sent: () => sent,
  };
}

const firing = async (alertname: string) =>
  (await prometheus.alerts()).some((a) => a.labels.alertname === alertname && a.state === 'firing');
const until = (alertname: string, state: boolean, what: string) =>
  eventually(async () => ((await firing(alertname)) === state ? true : undefined), what, 90_000);

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  caDir = await mkdtemp(join(tmpdir(), 'errata-ca-'));
  await writeFile(join(caDir, 'ca.pem'), receiver.caPem);
  full = await startFullCluster(infraEnv(), 'Monitored', {
    ERRATA_SECRETS_KEY: randomBytes(32).toString('hex'),
    ERRATA_WEBHOOK_ALLOW_HOSTS: 'localhost',
    ERRATA_WEBHOOK_CA_FILE: join(caDir, 'ca.pem'),
    ERRATA_WEBHOOK_RETRY_BASE_MS: '200',
    ERRATA_ALERT_CHANNEL_LIMIT_PER_HOUR: '100000',
  });
  prometheus = await startPrometheus({
    targets: {
      ingest: full.ingests.map((r) => r.url),
      dispatcher: full.dispatchers.map((r) => r.url),
      mcp: [full.mcp.url],
    },
    rules: scaledRules(await readFile(RULES_FILE, 'utf8')),
  });
  traffic = startTraffic();
}, 240_000);
afterAll(async () => {
  await traffic?.stop();
  await prometheus?.stop();
  const exitCodes = full ? (await full.cluster.destroy()).exitCodes : [];
  await receiver?.close();
  if (caDir) await rm(caDir, { recursive: true, force: true });
  expect(exitCodes).toEqual(exitCodes.map(() => 0));
});

describe('the shipped rules and dashboard on a real Prometheus', () => {
  it('finds every series a rule or a panel reads, with its labels, and data for every recording rule and panel', async () => {
    const rules = (
      parse(await readFile(RULES_FILE, 'utf8')) as { groups: Array<{ rules: Array<{ record?: string; expr: string }> }> }
    ).groups.flatMap((g) => g.rules);
    const queries = dashboardQueries('10s');
    const referenced = new Set(
      [...rules.map((r) => r.expr), ...queries.map((q) => q.expr)].flatMap((text) => text.match(/\berrata_[a-z0-9_]+/g) ?? []),
    );
    for (const name of referenced) {
      if (fromOperator(name)) continue;
      expect(Object.keys(EXPECTED_LABELS), `${name} is read by a rule or panel but not listed in EXPECTED_LABELS`).toContain(
        name,
      );
      const samples = await eventually(
        async () => {
          const found = await prometheus.query(`{__name__="${name}"}`);
          return found.length > 0 ? found : undefined;
        },
        `${name} scraped`,
        60_000,
      );
      for (const sample of samples) {
        for (const label of EXPECTED_LABELS[name]!) expect(sample.metric, `${name} without ${label}`).toHaveProperty(label);
      }
    }
    // Every role says what it runs.
    // Waited for: a target's first scrape may not have happened yet (seen when the machine was busy).
    const everyRole = ['dispatcher', 'dispatcher', 'ingest', 'ingest', 'mcp'];
    const roles = async () => (await prometheus.query('errata_build_info')).map((s) => s.metric.role).sort();
    await eventually(
      async () => (JSON.stringify(await roles()) === JSON.stringify(everyRole) ? true : undefined),
      'every role scraped',
      60_000,
    );
    expect(await roles()).toEqual(everyRole);

    for (const record of rules.map((r) => r.record).filter((r): r is string => Boolean(r))) {
      await eventually(
        async () => ((await prometheus.query(record)).length > 0 ? true : undefined),
        `${record} recorded`,
        60_000,
      );
    }
    for (const { panel, expr } of queries) {
      if ((expr.match(/\berrata_[a-z0-9_]+/g) ?? []).some(fromOperator)) continue;
      await eventually(
        async () => ((await prometheus.query(expr)).length > 0 ? true : undefined),
        `data for "${panel}": ${expr}`,
        60_000,
      );
    }
  });

  it('fires ErrataDispatcherNotConsuming when the dispatchers stop under load, and resolves once they are back', async () => {
    expect(await firing('ErrataDispatcherNotConsuming')).toBe(false);
    const ports = full.dispatchers.map((d) => d.port);
    for (const dispatcher of full.dispatchers) expect(await dispatcher.stop()).toBe(0);
    await until('ErrataDispatcherNotConsuming', true, 'ErrataDispatcherNotConsuming to fire');
    // Back on the same ports, which Prometheus scrapes.
    full.dispatchers = [];
    for (const port of ports) full.dispatchers.push(await full.cluster.start('dispatcher', { port }));
    await until('ErrataDispatcherNotConsuming', false, 'ErrataDispatcherNotConsuming to resolve');
    expect(traffic.sent()).toBeGreaterThan(0);
  }, 300_000);

  // The late events are made by taking ClickHouse away rather than the dispatchers: a dispatcher
  // started afresh can drain the whole backlog before Prometheus first scrapes it, and rate()
  // never sees the increase before a series' first sample (this failed CI once). Here the same
  // dispatcher processes are scraped throughout: they hold their offsets and retry while
  // ClickHouse is down, and store the waiting events once it is back.
  it('fires ErrataEventsWaitingTooLong when accepted events are stored more than 60 s late (ClickHouse down under load), and resolves once they are on time', async () => {
    expect(await firing('ErrataEventsWaitingTooLong')).toBe(false);
    const stoppedAt = Date.now();
    await stopServer('clickhouse', 'SIGTERM');
    // Past the alert's 60 s, ClickHouse comes back and the dispatchers store the backlog late.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, stoppedAt + 70_000 - Date.now())));
    await restartServers();
    await until('ErrataEventsWaitingTooLong', true, 'ErrataEventsWaitingTooLong to fire');
    await until('ErrataEventsWaitingTooLong', false, 'ErrataEventsWaitingTooLong to resolve');
  }, 400_000); // a fixed 70 s outage, a restart, and the alert firing and resolving on a busy machine

  it('fires ErrataWebhookDeliveriesFailing while a channel’s receiver answers 500, and resolves once it answers 200', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      apiRequest(full.mcp, method, `/api/v1/organizations/${full.p.organization}${path}`, full.p.token, body);
    const created = await call('POST', '/alert-channels', { name: 'Failing', type: 'webhook', url: receiver.url });
    expect(created.status).toBe(201);
    receiver.script.push(...Array.from({ length: 100_000 }, () => 500));
    const rule = await call('POST', `/projects/${full.p.projectSlug}/alert-rules`, {
      name: 'Every event',
      trigger: 'every_occurrence',
      channelIds: [created.body.channel.id],
    });
    expect(rule.status).toBe(201);
    await eventually(
      async () => ((await firing('ErrataWebhookDeliveriesFailing')) ? true : undefined),
      'the alert to fire',
      90_000,
    );
    // The receiver answers 200 from now on; new alerts and the retries are delivered.
    receiver.script.length = 0;
    await eventually(
      async () => ((await firing('ErrataWebhookDeliveriesFailing')) ? undefined : true),
      'the alert to resolve',
      90_000,
    );
    const delivered = await prometheus.query('sum(errata_webhook_delivery_attempts_total{verdict="delivered"})');
    expect(Number(delivered[0]!.value[1])).toBeGreaterThan(0);
  });
});
