// Python's sentry-sdk, unmodified, against a real standalone server: exceptions grouped into
// one issue, an exception group, a message, the logging integration, and structured logs (br or
// gzip compressed).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { searchLogs, waitForIssue, waitForLogs } from '../support/issues.ts';
import {
  provision,
  REPO_ROOT,
  runProcess,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

const CLIENT = join(REPO_ROOT, 'test', 'clients', 'python', 'send_events.py');
let server: StandaloneServer;
let p: Provisioned;

beforeAll(async () => {
  server = await startServer();
  p = await provision(server, 'Python App');
});
afterAll(async () => {
  await stopAndRemove(server);
});

async function send(scenario: string, marker: string): Promise<string[]> {
  const result = await runProcess(inject('python'), [CLIENT, p.dsn, scenario, marker]);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { eventIds: Array<string | null> }).eventIds.filter((id): id is string => id !== null);
}

const marker = () => `m${randomUUID().slice(0, 8)}`;

describe('Python sentry-sdk', () => {
  it('groups a repeated exception into one issue titled and located as Sentry shows it', async () => {
    const m = marker();
    expect(await send('exception', m)).toHaveLength(3);
    const issue = await waitForIssue(server, p, `of ${m} has no lines`, 3);
    expect(issue).toMatchObject({
      title: `ValueError: Invoice 2002 of ${m} has no lines`,
      culprit: '__main__ in parse_invoice',
      level: 'error',
      count: 3,
      userCount: 1,
      environments: ['e2e'],
      lastRelease: `python-client@${m}`,
    });
    expect(issue.shortId).toMatch(/^PYTHON-APP-\d+$/);
  });

  it('titles an ExceptionGroup of one failure after that failure, as Sentry does', async () => {
    const m = marker();
    expect(await send('exception-group', m)).toHaveLength(1);
    const issue = await waitForIssue(server, p, m);
    expect(issue.title).toBe(`ValueError: Invoice 3001 of ${m} has no lines`);
  });

  it('records a message and a logging.error call as issues', async () => {
    const m = marker();
    await send('message', m);
    expect(await waitForIssue(server, p, `Python message ${m}`)).toMatchObject({
      title: `Python message ${m}`,
      level: 'warning',
    });
    await send('logging', m);
    expect(await waitForIssue(server, p, `Python logging error ${m}`)).toMatchObject({
      title: `Python logging error ${m}`,
      level: 'error',
    });
  });

  it('stores structured logs with the severity Python sends as an attribute', async () => {
    const m = marker();
    await send('logs', m);
    const logs = await waitForLogs(server, p, `query=${m}`, 3);
    expect(logs.map((l) => [l.level, l.severityNumber, l.body]).sort()).toEqual([
      ['error', 17, `Python log error ${m} for invoice 42`],
      ['info', 9, `Python log info ${m}`],
      ['warn', 13, `Python log warn ${m}`],
    ]);
    const info = logs.find((l) => l.level === 'info')!;
    expect(info.attributes.invoiceId).toEqual({ type: 'integer', value: 7 });
    expect(info.attributes.paid).toEqual({ type: 'boolean', value: false });
    expect(info).toMatchObject({ release: `python-client@${m}`, environment: 'e2e' });
    expect((await searchLogs(server, p, `query=${m}&attribute=region:us`)).map((l) => l.body)).toEqual([`Python log warn ${m}`]);
    expect(await searchLogs(server, p, `query=${m}&level=warn,error`)).toHaveLength(2);
  });
});
