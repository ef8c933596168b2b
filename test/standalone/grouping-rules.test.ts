// A project's grouping rules end to end (issue 19): @sentry/node, unmodified, sends two
// different database errors and one validation error reached through two worker functions;
// then an admin sets a fingerprint rule through /api/v1 and a stack-trace rule through the
// CLI. The same errors sent again group by the rules (the database errors merge into one
// issue, and without the worker frames the validation errors merge too), while the events
// sent before keep their issues.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listIssues, waitForIssue } from '../support/issues.ts';
import {
  apiRequest,
  eventually,
  provision,
  REPO_ROOT,
  runCli,
  runCliJson,
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
  p = await provision(server, 'Rules App');
});
afterAll(() => stopAndRemove(server));

const rulesPath = () => `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/grouping-rules`;

async function send(marker: string): Promise<void> {
  const result = await runProcess(process.execPath, ['grouping-rules.cjs', p.dsn, marker], { cwd: CLIENT_DIR });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect((JSON.parse(result.stdout) as { eventIds: string[] }).eventIds).toHaveLength(4);
}

/** The project's issues once they hold `events` validation events in all. */
function waitForValidationEvents(events: number) {
  return eventually(async () => {
    const issues = await listIssues(server, p);
    const validation = issues.filter((i) => i.title.startsWith('ValidationError'));
    return validation.reduce((sum, i) => sum + i.count, 0) >= events ? issues : undefined;
  }, `${events} validation events`);
}

const FINGERPRINT_RULES =
  '# database outages are one problem\nerror.type:*Unavailable -> database-down title="Database unavailable"\n';
const STACK_TRACE_RULES = 'stack.function:viaWorker* -app\n';

describe('project grouping rules', () => {
  it('group new events by the rules set through the API and the CLI, and leave earlier events in their issues', async () => {
    const before = `m${randomUUID().slice(0, 8)}`;
    await send(before);
    const titles = [`primary of ${before}`, `replica of ${before}`, `order A of ${before}`, `order B of ${before}`];
    for (const title of titles) await waitForIssue(server, p, title, 1);

    const put = await apiRequest(server, 'PUT', rulesPath(), p.token, { fingerprintRules: FINGERPRINT_RULES });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ fingerprintRules: FINGERPRINT_RULES, stackTraceRules: '' });
    const set = await runCli(
      ['setgroupingrules', '--project', p.projectSlug, '--stack-trace-rules', '-'],
      server.env,
      STACK_TRACE_RULES,
    );
    expect(set.stderr).toBe('');
    expect(set.stdout).toContain('1 fingerprint rule(s) and 1 stack-trace rule(s)');
    const read = await apiRequest(server, 'GET', rulesPath(), p.token);
    expect(read.body).toEqual({ fingerprintRules: FINGERPRINT_RULES, stackTraceRules: STACK_TRACE_RULES });

    const after = `m${randomUUID().slice(0, 8)}`;
    await send(after);
    const database = await waitForIssue(server, p, 'Database unavailable', 2);
    expect(database.count).toBe(2);
    const issues = await waitForValidationEvents(4);
    // The database errors sent before the rule keep their own issues.
    for (const title of titles.slice(0, 2))
      expect(issues.filter((i) => i.title.includes(title)).map((i) => i.count)).toEqual([1]);
    // Without the worker frames the two new validation events share their app hash, so they land
    // in one issue. Their system hashes (every frame, in_app or not) are those of the earlier
    // events, so that issue is one of the two earlier ones (as in Sentry, an issue keeps every
    // hash it was seen with); the earlier events stay where they were.
    const validation = issues.filter((i) => i.title.startsWith('ValidationError'));
    expect(validation.map((i) => i.count).sort()).toEqual([1, 3]);
    expect(validation.find((i) => i.count === 3)!.title).toContain(`of ${after}`);
    expect(validation.find((i) => i.count === 1)!.title).toContain(`of ${before}`);
  });

  it('refuse a bad rule with its line and column, storing nothing', async () => {
    const bad = await apiRequest(server, 'PUT', rulesPath(), p.token, {
      stackTraceRules: 'stack.function:ok -app\nstack.function:handler +inapp',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe(
      'stack-trace rules, line 2, column 24: expected an action (+app, -app, +group, -group, each optionally prefixed by ^ or v, or category=<name>), found "+inapp"',
    );
    const cli = await runCli(
      ['setgroupingrules', '--project', p.projectSlug, '--fingerprint-rules', '-'],
      server.env,
      'error.type:X x',
    );
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('fingerprint rules, line 1, column 14: expected "->" and then a fingerprint');
    const stored = await runCliJson<{ fingerprintRules: string; stackTraceRules: string }>(
      ['getgroupingrules', '--project', p.projectSlug],
      server.env,
    );
    expect(stored).toMatchObject({ fingerprintRules: FINGERPRINT_RULES, stackTraceRules: STACK_TRACE_RULES });
    const exact = await runCli(['getgroupingrules', '--project', p.projectSlug, '--kind', 'fingerprint'], server.env);
    expect(exact.stdout).toBe(FINGERPRINT_RULES);
  });

  it('need an admin token', async () => {
    const reader = await runCliJson<{ plaintext: string }>(
      ['createtoken', '--role', 'read', '--name', 'rules-reader'],
      server.env,
    );
    expect((await apiRequest(server, 'GET', rulesPath(), reader.plaintext)).status).toBe(403);
    expect((await apiRequest(server, 'PUT', rulesPath(), undefined, { fingerprintRules: '' })).status).toBe(401);
  });
});
