// sentry-go, unmodified, against a real standalone server: wrapped errors grouped into one
// issue, a message, and structured logs (RFC 3339 timestamps, top-level severity numbers).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { searchLogs, waitForIssue, waitForLogs } from '../support/issues.ts';
import {
  provision,
  runProcess,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

let server: StandaloneServer;
let p: Provisioned;

beforeAll(async () => {
  server = await startServer();
  p = await provision(server, 'Go App');
});
afterAll(async () => {
  await stopAndRemove(server);
});

async function send(scenario: string, marker: string): Promise<string[]> {
  const result = await runProcess(inject('goClient'), [p.dsn, scenario, marker]);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { eventIds: string[] | null }).eventIds ?? [];
}

const marker = () => `m${randomUUID().slice(0, 8)}`;

describe('sentry-go', () => {
  it('groups a repeated wrapped error into one issue titled as Sentry shows it', async () => {
    const m = marker();
    expect(await send('exception', m)).toHaveLength(3);
    const issue = await waitForIssue(server, p, 'no stock left', 3);
    expect(issue).toMatchObject({
      title: '*fmt.wrapError: place order: reserve item 3002: no stock left',
      culprit: 'main in main',
      level: 'error',
      count: 3,
      userCount: 1,
      environments: ['e2e'],
      lastRelease: `go-client@${m}`,
    });
    expect(issue.shortId).toMatch(/^GO-APP-\d+$/);
  });

  it('records a message as an issue', async () => {
    const m = marker();
    await send('message', m);
    expect(await waitForIssue(server, p, `Go message ${m}`)).toMatchObject({ title: `Go message ${m}`, level: 'info', count: 1 });
  });

  it('stores structured logs', async () => {
    const m = marker();
    await send('logs', m);
    const logs = await waitForLogs(server, p, `query=${m}`, 3);
    expect(logs.map((l) => [l.level, l.body]).sort()).toEqual([
      ['error', `Go log error ${m} for order 42`],
      ['info', `Go log info ${m}`],
      ['warn', `Go log warn ${m}`],
    ]);
    const info = logs.find((l) => l.level === 'info')!;
    expect(info.attributes.quantity).toEqual({ type: 'integer', value: 2 });
    expect(info.attributes.sku).toEqual({ type: 'string', value: 'A-7' });
    expect(info.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect((await searchLogs(server, p, `query=${m}&attribute=sku:A-7`)).map((l) => l.body)).toEqual([`Go log info ${m}`]);
  });
});
