// The distributed mode end to end: ingest (two processes behind one address), dispatcher (two
// processes, one consumer group) and mcp as separate processes on real Postgres, ClickHouse
// and Kafka. Real SDK clients (@sentry/node, Python's sentry-sdk) send events and logs to
// ingest; the results are read through the read API of the mcp process, and a person signed in
// to the dashboard it serves sees them on the Issues page and an issue page.
import { randomUUID } from 'node:crypto';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFullCluster, type Cluster } from '../support/distributed-cluster.ts';
import { infraEnv } from '../support/infra-env.ts';
import { listIssues, searchLogs, waitForIssue, waitForLogs } from '../support/issues.ts';
import { metricTotal } from '../support/metrics.ts';
import { threadNiceValues } from '../support/proc-stat.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import { FormClient } from '../support/dashboard-forms.ts';
import { startRole, type RoleProcess } from '../support/role-process.ts';
import { api, eventually, loggedLine, REPO_ROOT, runCli, runProcess, type Provisioned } from '../support/standalone-server.ts';
import { testPython } from '../support/test-python.ts';

let cluster: Cluster;
let mcp: RoleProcess;
let ingests: RoleProcess[];
let dispatchers: RoleProcess[];
let p: Provisioned;

beforeAll(async () => {
  ({ cluster, ingests, dispatchers, mcp, p } = await startFullCluster(infraEnv(), 'Dist App'));
});
afterAll(async () => {
  const { exitCodes } = await cluster.destroy();
  expect(exitCodes).toEqual(exitCodes.map(() => 0));
});

const marker = () => `m${randomUUID().slice(0, 8)}`;

describe('distributed roles', () => {
  it('each role is healthy only with its dependencies and serves its own paths', async () => {
    for (const role of [...ingests, ...dispatchers, mcp]) {
      const health = await fetch(`${role.url}/healthz`);
      expect(health.status).toBe(200);
    }
    const healthz = (await (await fetch(`${mcp.url}/healthz`)).json()) as { status: string };
    expect(healthz.status).toBe('ok');
    expect((await fetch(`${dispatchers[0]!.url}/api/v1/organizations`)).status).toBe(404);
    // An ingest process answers a path it does not serve as every role does: JSON saying where to go.
    const elsewhere = await fetch(`${ingests[0]!.url}/api/v1/organizations`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual({
      error: { code: 'not_found', message: expect.stringMatching(/ingest serves \/api\/\{id\}\/envelope\//) },
    });
  });

  it('the dispatchers run every thread at nice 10, below ingest and mcp, and say so', async () => {
    // The roles start at this process's nice value (a CI run may itself be niced).
    const startedAt = getPriority();
    const lowered = Math.max(startedAt, 10);
    for (const role of dispatchers) expect(new Set(threadNiceValues(role.child.pid!))).toEqual(new Set([lowered]));
    for (const role of [...ingests, mcp]) expect(new Set(threadNiceValues(role.child.pid!))).toEqual(new Set([startedAt]));
    // Topics and a consumer group of their own (under the cluster's prefix, deleted with it): the
    // cluster's dispatchers' group is not rebalanced under the tests that follow.
    const env = {
      ...cluster.env,
      ERRATA_LOG_LEVEL: 'info',
      ERRATA_KAFKA_TOPIC_PREFIX: `${cluster.env.ERRATA_KAFKA_TOPIC_PREFIX}nice.`,
    };
    const said = await startRole('dispatcher', env);
    try {
      expect(await loggedLine(said, 'dispatcher runs at a lower CPU priority (ERRATA_DISPATCHER_NICE)')).toMatchObject({
        nice: lowered,
      });
    } finally {
      expect(await said.stop()).toBe(0);
    }
    const asStarted = await startRole('dispatcher', { ...env, ERRATA_DISPATCHER_NICE: '0' });
    try {
      expect(new Set(threadNiceValues(asStarted.child.pid!))).toEqual(new Set([startedAt]));
    } finally {
      expect(await asStarted.stop()).toBe(0);
    }
  });

  it('@sentry/node: exceptions become one issue, logs are searchable, through two ingests and two dispatchers', async () => {
    const m = marker();
    const run = async (scenario: string) => {
      const result = await runProcess(process.execPath, ['send-events.cjs', p.dsn, scenario, m], {
        cwd: join(REPO_ROOT, 'test', 'clients', 'node'),
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    };
    await run('exception');
    await run('logs');
    const issue = await waitForIssue(mcp, p, `of ${m} is empty`, 3);
    expect(issue).toMatchObject({
      // The issue takes the title of the event processed last; the SDK sends the three at once,
      // so which of them arrives last is not fixed.
      title: expect.stringMatching(new RegExp(`^TypeError: Cart 100[0-2] of ${m} is empty$`)),
      culprit: 'parseCart(send-events)',
      count: 3,
      userCount: 1,
      environments: ['e2e'],
      lastRelease: `node-client@${m}`,
    });
    const detail = await api<{ latestEvent: { payload: { exception: { values: Array<{ type: string }> } } } }>(
      mcp,
      `/api/v1/organizations/${p.organization}/issues/${issue.shortId}`,
      p.token,
    );
    expect(detail.body.latestEvent.payload.exception.values[0]!.type).toBe('TypeError');
    const logs = await waitForLogs(mcp, p, `query=${m}`, 3);
    expect(logs.map((l) => l.level).sort()).toEqual(['error', 'info', 'warn']);
    expect(logs.find((l) => l.level === 'info')!.attributes.cartId).toEqual({ type: 'integer', value: 7 });
    expect((await searchLogs(mcp, p, `query=${m}&attribute=cartId:7`)).map((l) => l.body)).toEqual([`Node log info ${m}`]);
  });

  it("Python's sentry-sdk: an exception and a message", async () => {
    const m = marker();
    const python = testPython();
    const result = await runProcess(python, [
      join(REPO_ROOT, 'test', 'clients', 'python', 'send_events.py'),
      p.dsn,
      'exception',
      m,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const issue = await waitForIssue(mcp, p, `of ${m} has no lines`, 3);
    // Events of one issue travel on different partitions (keyed by event id), so the last
    // processed, whose title the issue shows, is any of the three.
    expect(issue).toMatchObject({
      title: expect.stringMatching(new RegExp(`^ValueError: Invoice 200[0-2] of ${m} has no lines$`)),
      count: 3,
    });
  });

  it('spreads events over both ingests and both dispatchers, and reports the SRE metrics', async () => {
    const m = marker();
    const sent = 120;
    const url = `${cluster.ingest.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`;
    for (let i = 0; i < sent; i++) {
      // A new connection per request: the address in front hands each to the next ingest.
      const response = await rawRequest(url, {
        body: eventEnvelope({ event_id: randomUUID().replace(/-/g, ''), message: `Spread ${m}`, fingerprint: [m] }),
        headers: { connection: 'close' },
      });
      expect(response.status).toBe(200);
    }
    await waitForIssue(mcp, p, `Spread ${m}`, sent);
    for (const ingest of ingests) {
      expect(await metricTotal(ingest, 'errata_ingest_accepted_total', { category: 'error' })).toBeGreaterThan(0);
      expect(
        await metricTotal(ingest, 'errata_http_requests_total', { route: '/api/{id}/envelope/', status: '200' }),
      ).toBeGreaterThan(0);
      expect(await metricTotal(ingest, 'errata_queue_produce_duration_seconds_count')).toBeGreaterThan(0);
    }
    for (const dispatcher of dispatchers) {
      expect(await metricTotal(dispatcher, 'errata_pipeline_processed_total', { category: 'error' })).toBeGreaterThan(0);
      expect(
        await metricTotal(dispatcher, 'errata_pipeline_step_duration_seconds_count', { step: 'record_occurrences' }),
      ).toBeGreaterThan(0);
      expect(await metricTotal(dispatcher, 'errata_store_write_batch_size_count', { store: 'events' })).toBeGreaterThan(0);
    }
    // Consumer lag per topic and partition: every partition of the events topic is reported,
    // and once everything is processed the lag is zero.
    const lagText = await eventually(async () => {
      const text = await (await fetch(`${dispatchers[0]!.url}/metrics`)).text();
      const lines = text.split('\n').filter((l) => l.startsWith('errata_queue_lag{') && l.includes('topic="events.received"'));
      return lines.length === 4 && lines.every((l) => l.endsWith(' 0')) ? lines : undefined;
    }, 'zero lag on all four partitions');
    expect(lagText.map((l) => /partition="(\d+)"/.exec(l)![1]).sort()).toEqual(['0', '1', '2', '3']);
  });

  it('rejects bad input at ingest with clear errors and counts it', async () => {
    const bad = await rawRequest(`${cluster.ingest.url}/api/${p.projectId}/envelope/?sentry_key=nope`, {
      body: eventEnvelope({ message: 'x' }),
    });
    expect(bad.status).toBe(401);
    const issuesBefore = await listIssues(mcp, p);
    const outcomes = async () =>
      (await Promise.all(ingests.map((i) => metricTotal(i, 'errata_outcomes_total')))).reduce((a, b) => a + b, 0);
    const outcomesBefore = await outcomes();
    const garbage = await rawRequest(`${cluster.ingest.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`, {
      body: '{"event_id": nope}\n',
    });
    expect(garbage.status).toBe(400);
    expect(garbage.json()).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await outcomes()).toBe(outcomesBefore + 1);
    expect(await listIssues(mcp, p)).toHaveLength(issuesBefore.length);
  });

  it('admin commands work against Postgres: a disabled key is refused by every ingest', async () => {
    const { runCliJson } = await import('../support/standalone-server.ts');
    const project = await runCliJson<{ dsn: string }>(['createproject', '--name', 'Keyed'], cluster.env);
    const key = new URL(project.dsn).username;
    const projectId = new URL(project.dsn).pathname.slice(1);
    const listed = await runCliJson<{ projects: Array<{ slug: string }> }>(['listprojects'], cluster.env);
    expect(listed.projects.map((x) => x.slug)).toContain('keyed');
    await runCliJson(['disablekey', key], cluster.env);
    // A key never seen by these ingests is looked up fresh, so the refusal is immediate.
    for (let i = 0; i < 2; i++) {
      const response = await rawRequest(`${cluster.ingest.url}/api/${projectId}/envelope/?sentry_key=${key}`, {
        body: eventEnvelope({ event_id: randomUUID().replace(/-/g, ''), message: 'disabled' }),
        headers: { connection: 'close' },
      });
      expect(response.status).toBe(403);
    }
  });

  it('a role with a small heap, as in a pod with a memory limit, fixes its growing factor at 4, says so, and can be told not to', async () => {
    // The heap Node gives a process in a pod with a 512Mi memory limit (half of it, at least 256 MB).
    const env = { ...cluster.env, NODE_OPTIONS: '--max-old-space-size=256', ERRATA_LOG_LEVEL: 'info' };
    const started = async (extra: Record<string, string>) => {
      const role = await startRole('mcp', { ...env, ...extra });
      try {
        const line = await loggedLine(role, 'errata role started');
        const limit = await metricTotal(role, 'errata_thread_heap_bytes', { thread: 'main', kind: 'limit' });
        return { limitMb: limit / 2 ** 20, line };
      } finally {
        expect(await role.stop()).toBe(0);
      }
    };
    const small = await started({});
    expect(small.limitMb).toBeGreaterThanOrEqual(256);
    expect(small.limitMb).toBeLessThan(400);
    expect(small.line).toMatchObject({ heapLimitMb: Math.round(small.limitMb), heapGrowingPercent: 300 });
    const own = await started({ ERRATA_HEAP_GROWING_PERCENT: '0' });
    expect(own.line).not.toHaveProperty('heapGrowingPercent');
  });

  it('a role refuses to start on a database `errata migrate` has not prepared, saying so', async () => {
    const { withDatabase } = await import('../support/postgres-database.ts');
    const bare = withDatabase(() => infraEnv().ERRATA_POSTGRES_URL!);
    const url = await bare.create();
    try {
      const result = await runCli(['serve', 'ingest'], { ...cluster.env, ERRATA_POSTGRES_URL: url, ERRATA_PORT: '0' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /the Postgres schema is behind this version of Errata \(missing 0001-initial.*\): run `errata migrate` first/,
      );
      // So does an admin command: it answered "the metadata store (Postgres) is unavailable: retry later".
      const command = await runCli(['createproject', '--name', 'Early'], { ...cluster.env, ERRATA_POSTGRES_URL: url });
      expect(command.code).toBe(1);
      expect(command.stderr).toMatch(/the Postgres schema is behind this version of Errata .*: run `errata migrate` first/);
    } finally {
      await bare.drop();
    }
  });
});

describe('the dashboard on the mcp role', () => {
  it('signs a person in and shows the Issues page and an issue page, read from Postgres and ClickHouse', async () => {
    const m = marker();
    const sent = await rawRequest(`${cluster.ingest.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`, {
      body: eventEnvelope({
        event_id: randomUUID().replace(/-/g, ''),
        level: 'error',
        exception: { values: [{ type: 'DashboardError', value: `dashboard ${m}` }] },
        breadcrumbs: [{ timestamp: Date.now() / 1000, category: 'ui.click', message: `clicked ${m}` }],
      }),
    });
    expect(sent.status).toBe(200);
    const issue = await waitForIssue(mcp, p, `dashboard ${m}`);
    const email = `dist-${m}@example.com`;
    const created = await runCli(
      ['createuser', '--email', email, '--role', 'member', '--password-stdin'],
      cluster.env,
      'a long password',
    );
    expect(created.code).toBe(0);
    // Form posts must come from ERRATA_BASE_URL's origin (the ingress address), as behind a real ingress.
    const client = new FormClient(mcp.url);
    const origin = { origin: cluster.env.ERRATA_BASE_URL! };
    const signIn = await client.post(
      '/login',
      { csrf: await client.token('/login'), email, password: 'a long password' },
      origin,
    );
    expect(signIn.status).toBe(303);
    const list = await client.get(`/organizations/${p.organization}/issues?project=${p.projectSlug}`);
    expect(list.status).toBe(200);
    expect(list.html).toContain(issue.shortId);
    const page = await client.get(`/organizations/${p.organization}/issues/${issue.shortId}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`dashboard ${m}`);
    expect(page.html).toContain(`clicked ${m}`);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
  });
});
