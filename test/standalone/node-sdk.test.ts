// @sentry/node, unmodified, sending to a real standalone server: exceptions grouped into one
// issue, a message, a gzip-compressed large event, and structured logs.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchLogs, waitForIssue, waitForLatestEvent, waitForLogs } from '../support/issues.ts';
import { metricTotal } from '../support/metrics.ts';
import {
  eventually,
  provision,
  REPO_ROOT,
  runProcess,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

const CLIENT_DIR = join(REPO_ROOT, 'test', 'clients', 'node');
let server: StandaloneServer;
let p: Provisioned;

beforeAll(async () => {
  server = await startServer();
  p = await provision(server, 'Node App');
});
afterAll(async () => {
  await stopAndRemove(server);
});

async function send(scenario: string, marker: string, dsn = p.dsn): Promise<string[]> {
  const result = await runProcess(process.execPath, ['send-events.cjs', dsn, scenario, marker], { cwd: CLIENT_DIR });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { eventIds: string[] }).eventIds;
}

async function gzippedRequests(): Promise<number> {
  return metricTotal(server, 'errata_ingest_requests_total', { encoding: 'gzip' });
}

const marker = () => `m${randomUUID().slice(0, 8)}`;

describe('@sentry/node', () => {
  it('groups a repeated exception into one issue titled and located as Sentry shows it', async () => {
    const m = marker();
    const eventIds = await send('exception', m);
    expect(eventIds).toHaveLength(3);
    const issue = await waitForIssue(server, p, `of ${m} is empty`, 3);
    expect(issue).toMatchObject({
      // The issue takes the title of the event processed last; the SDK sends the three at once,
      // so which of them arrives last is not fixed.
      title: expect.stringMatching(new RegExp(`^TypeError: Cart 100[0-2] of ${m} is empty$`)),
      culprit: 'parseCart(send-events)',
      level: 'error',
      status: 'unresolved',
      count: 3,
      userCount: 1,
      environments: ['e2e'],
      lastRelease: `node-client@${m}`,
    });
    expect(issue.shortId).toMatch(/^NODE-APP-\d+$/);
    const latestEvent = await waitForLatestEvent<{
      eventId: string;
      payload: { exception: { values: Array<{ stacktrace: { frames: unknown[] } }> } };
    }>(server, p, issue.shortId);
    expect(eventIds.map((id) => id.replace(/-/g, ''))).toContain(latestEvent.eventId);
    expect(latestEvent.payload.exception.values[0]!.stacktrace.frames.length).toBeGreaterThan(2);
  });

  it('records a message as its own issue', async () => {
    const m = marker();
    await send('message', m);
    const issue = await waitForIssue(server, p, `Node message ${m}`);
    expect(issue).toMatchObject({ title: `Node message ${m}`, level: 'warning', count: 1 });
  });

  it("refuses, as Sentry does, and counts an event sent with a DSN whose project id is not its key's project", async () => {
    const dsn = new URL(p.dsn);
    dsn.pathname = dsn.pathname.replace(/\d+$/, String(p.projectId + 1000));
    const refused = () => metricTotal(server, 'errata_outcomes_total', { reason: 'project_id' });
    const accepted = () => metricTotal(server, 'errata_ingest_accepted_total');
    const [refusedBefore, acceptedBefore] = [await refused(), await accepted()];
    await send('message', marker(), dsn.href);
    // The event's request, and whatever else the SDK sends with that DSN, are refused.
    expect(await refused()).toBeGreaterThan(refusedBefore);
    expect(await accepted()).toBe(acceptedBefore);
  });

  it('counts what the SDK reports it dropped itself (its client report), by reason and category', async () => {
    const discarded = () => metricTotal(server, 'errata_sdk_discarded_total', { reason: 'before_send', category: 'error' });
    const before = await discarded();
    await send('dropped', marker());
    // The report rides its own envelope, sent at the SDK's flush.
    await eventually(async () => ((await discarded()) === before + 2 ? true : undefined), 'the client report counted');
  });

  it('accepts an event over 32 KiB, which the SDK gzips, without losing data', async () => {
    const m = marker();
    const gzippedBefore = await gzippedRequests();
    const [eventId] = await send('large', m);
    const issue = await waitForIssue(server, p, `Cart 7 of ${m}`, 1);
    expect(await gzippedRequests()).toBeGreaterThan(gzippedBefore);
    const latestEvent = await waitForLatestEvent<{ eventId: string; payload: { extra: { blob: string[] } } }>(
      server,
      p,
      issue.shortId,
    );
    expect(latestEvent.eventId).toBe(eventId!.replace(/-/g, ''));
    expect(latestEvent.payload.extra.blob).toHaveLength(60);
  });

  it('stores structured logs, searchable by text, level, attribute and trace id', async () => {
    const m = marker();
    await send('logs', m);
    const logs = await waitForLogs(server, p, `query=${m}`, 3);
    expect(logs.map((l) => [l.level, l.body]).sort()).toEqual([
      ['error', `Node log error ${m} for cart 42`],
      ['info', `Node log info ${m}`],
      ['warn', `Node log warn ${m}`],
    ]);
    const info = logs.find((l) => l.level === 'info')!;
    expect(info.attributes.cartId).toEqual({ type: 'integer', value: 7 });
    expect(info.attributes.premium).toEqual({ type: 'boolean', value: true });
    expect(info).toMatchObject({ release: `node-client@${m}`, environment: 'e2e', severityNumber: 9 });
    expect((await searchLogs(server, p, `query=${m}&level=error`)).map((l) => l.body)).toEqual([
      `Node log error ${m} for cart 42`,
    ]);
    expect((await searchLogs(server, p, `query=${m}&attribute=cartId:7`)).map((l) => l.body)).toEqual([`Node log info ${m}`]);
    expect(info.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect((await searchLogs(server, p, `traceId=${info.traceId}&query=${m}`)).length).toBe(3);
    expect(await searchLogs(server, p, `query=${m}&sinceMinutes=60`)).toHaveLength(3);
  });
});
