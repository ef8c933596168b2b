// The read API's access rules against a real server: bearer tokens only, organization
// isolation, project-scoped tokens seeing only their project (and nothing revealing that other
// objects exist), validation errors that say what to fix, and pagination.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrganization } from '../support/embedded-admin.ts';
import { waitForIssue } from '../support/issues.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import {
  api,
  runCliJson,
  startServer,
  stopAndRemove,
  initializedDataDir,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

let server: StandaloneServer;
let web: Provisioned;
let shopToken: string;
let readWebToken: string;
let otherOrgToken: string;

async function send(p: { projectId: number; publicKey: string }, message: string, level = 'error') {
  const response = await rawRequest(`${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`, {
    body: eventEnvelope({ event_id: randomUUID().replace(/-/g, ''), message, level }),
  });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  const dataDir = await initializedDataDir();
  // A second organization exists from the start (the product has no command for it).
  await runCliJson(['listprojects'], { ...process.env, ERRATA_DATA_DIR: dataDir });
  await addOrganization(dataDir, 'other-org');
  server = await startServer({ dataDir });
  const env = server.env;
  const webProject = await runCliJson<{ dsn: string; project: { id: number; slug: string } }>(
    ['createproject', '--name', 'web', '--organization', 'default'],
    env,
  );
  await runCliJson(['createproject', '--name', 'shop', '--organization', 'default'], env);
  const otherProject = await runCliJson<{ dsn: string; project: { id: number } }>(
    ['createproject', '--name', 'web', '--organization', 'other-org'],
    env,
  );
  const admin = await runCliJson<{ plaintext: string }>(['createtoken', '--role', 'admin', '--organization', 'default'], env);
  shopToken = (
    await runCliJson<{ plaintext: string }>(
      ['createtoken', '--role', 'triage', '--project', 'shop', '--organization', 'default'],
      env,
    )
  ).plaintext;
  readWebToken = (
    await runCliJson<{ plaintext: string }>(
      ['createtoken', '--role', 'read', '--project', 'web', '--organization', 'default'],
      env,
    )
  ).plaintext;
  otherOrgToken = (
    await runCliJson<{ plaintext: string }>(['createtoken', '--role', 'admin', '--organization', 'other-org'], env)
  ).plaintext;
  web = {
    organization: 'default',
    projectSlug: 'web',
    projectId: webProject.project.id,
    dsn: webProject.dsn,
    publicKey: new URL(webProject.dsn).username,
    token: admin.plaintext,
  };
  // Words, not numbers: numbers are parameterized away by grouping and would make one issue.
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
  for (const [i, word] of words.entries()) await send(web, `Web problem ${word}`, i === 0 ? 'warning' : 'error');
  await send({ projectId: otherProject.project.id, publicKey: new URL(otherProject.dsn).username }, 'Other org secret problem');
  await waitForIssue(server, web, 'Web problem echo');
});

afterAll(async () => {
  await stopAndRemove(server);
});

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate and how to get a token', async () => {
    for (const headers of [{}, { authorization: 'Bearer errata_agent_nope' }, { authorization: 'Basic abc' }] as Array<
      Record<string, string>
    >) {
      const response = await fetch(`${server.url}/api/v1/organizations/default/projects`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/errata createtoken/);
    }
  });
});

describe('organization and project isolation', () => {
  it('never shows another organization, and says "not found" rather than "forbidden"', async () => {
    const other = await api<{ error: { code: string; message: string } }>(
      server,
      '/api/v1/organizations/other-org/projects',
      web.token,
    );
    expect(other.status).toBe(404);
    expect(other.body.error.message).toBe('no organization "other-org" is visible to this token');
    const missing = await api<{ error: { message: string } }>(server, '/api/v1/organizations/no-such-org/projects', web.token);
    expect(missing.body.error.message).toBe('no organization "no-such-org" is visible to this token');
    const theirs = await api<{ issues: Array<{ title: string }> }>(
      server,
      '/api/v1/organizations/other-org/projects/web/issues',
      otherOrgToken,
    );
    expect(theirs.body.issues.map((i) => i.title)).toEqual(['Other org secret problem']);
    const ours = await api<{ issues: Array<{ title: string }> }>(
      server,
      '/api/v1/organizations/default/projects/web/issues?limit=100',
      web.token,
    );
    expect(ours.body.issues.map((i) => i.title)).not.toContain('Other org secret problem');
    expect((await api(server, '/api/v1/organizations/default/issues/WEB-1', otherOrgToken)).status).toBe(404);
  });

  it('shows a project-scoped token only its project', async () => {
    const projects = await api<{ projects: Array<{ slug: string; dsn?: string }> }>(
      server,
      '/api/v1/organizations/default/projects',
      shopToken,
    );
    expect(projects.body.projects.map((p) => p.slug)).toEqual(['shop']);
    expect(projects.body.projects[0]!.dsn).toBeUndefined();
    const issues = await api<{ error: { message: string } }>(
      server,
      '/api/v1/organizations/default/projects/web/issues',
      shopToken,
    );
    expect(issues.status).toBe(404);
    expect(issues.body.error.message).toBe('no project "web" is visible to this token');
    expect((await api(server, '/api/v1/organizations/default/issues/WEB-1', shopToken)).status).toBe(404);
    expect((await api(server, '/api/v1/organizations/default/projects/web/logs', shopToken)).status).toBe(404);
    expect((await api(server, '/api/v1/organizations/default/issues/WEB-1', readWebToken)).status).toBe(200);
  });

  it('shows DSNs to admin tokens only', async () => {
    const admin = await api<{ projects: Array<{ slug: string; dsn?: string }> }>(
      server,
      '/api/v1/organizations/default/projects',
      web.token,
    );
    expect(admin.body.projects.map((p) => p.slug)).toEqual(['shop', 'web']);
    expect(admin.body.projects.find((p) => p.slug === 'web')!.dsn).toBe(web.dsn);
  });
});

describe('issues', () => {
  it('returns an issue with its latest event', async () => {
    const response = await api<{
      issue: Record<string, unknown>;
      latestEvent: { eventId: string; payload: { logentry: { formatted: string } } };
    }>(server, '/api/v1/organizations/default/issues/WEB-1', readWebToken);
    expect(response.body.issue).toMatchObject({
      shortId: 'WEB-1',
      title: 'Web problem alpha',
      culprit: '',
      level: 'warning',
      status: 'unresolved',
      count: 1,
      userCount: 0,
    });
    for (const field of ['firstSeen', 'lastSeen']) expect(Date.parse(response.body.issue[field] as string)).not.toBeNaN();
    expect(response.body.latestEvent.payload.logentry.formatted).toBe('Web problem alpha');
    expect((await api(server, '/api/v1/organizations/default/issues/WEB-999', readWebToken)).status).toBe(404);
    expect((await api(server, '/api/v1/organizations/default/issues/not-an-id', readWebToken)).status).toBe(404);
  });

  it('filters by level and title text, and pages with a cursor', async () => {
    const warning = await api<{ issues: Array<{ shortId: string }> }>(
      server,
      '/api/v1/organizations/default/projects/web/issues?level=warning',
      readWebToken,
    );
    expect(warning.body.issues.map((i) => i.shortId)).toEqual(['WEB-1']);
    const text = await api<{ issues: Array<{ title: string }> }>(
      server,
      '/api/v1/organizations/default/projects/web/issues?query=PROBLEM%20delta',
      readWebToken,
    );
    expect(text.body.issues.map((i) => i.title)).toEqual(['Web problem delta']);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { issues: Array<{ shortId: string }>; nextCursor: string | null } } = await api(
        server,
        `/api/v1/organizations/default/projects/web/issues?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        readWebToken,
      );
      expect(page.body.issues.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.issues.map((i) => i.shortId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(['WEB-1', 'WEB-2', 'WEB-3', 'WEB-4', 'WEB-5']);
  });

  it('sorts as list_issues does, so a client can page by first seen and miss no issue seen again meanwhile', async () => {
    const page = (params: string) =>
      api<{ issues: Array<{ shortId: string }>; nextCursor: string | null; error?: { message: string } }>(
        server,
        `/api/v1/organizations/default/projects/web/issues?${params}`,
        readWebToken,
      );
    const first = await page('sort=firstSeen&limit=2');
    expect(first.body.issues.map((i) => i.shortId)).toEqual(['WEB-5', 'WEB-4']);
    // WEB-5 is seen again between the pages: by first seen it stays where it was.
    await send(web, 'Web problem echo');
    const rest = await page(`sort=firstSeen&limit=10&cursor=${first.body.nextCursor}`);
    expect(rest.body.issues.map((i) => i.shortId)).toEqual(['WEB-3', 'WEB-2', 'WEB-1']);
    const bad = await page('sort=newest');
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toMatch(/^invalid query parameter sort: .*lastSeen/);
    // A cursor continues only the order it came from.
    expect((await page(`sort=events&cursor=${first.body.nextCursor}`)).status).toBe(400);
  });

  it('takes the search syntax in query=, free text staying free text, and names the token of a bad one', async () => {
    const issues = (params: string) =>
      api<{ issues: Array<{ title: string }>; error?: { code: string; message: string } }>(
        server,
        `/api/v1/organizations/default/projects/web/issues?${params}`,
        readWebToken,
      );
    const titles = async (query: string, more = '') =>
      (await issues(`query=${encodeURIComponent(query)}${more}`)).body.issues.map((i) => i.title).sort();
    expect(await titles('level:warning problem')).toEqual(['Web problem alpha']);
    expect(await titles('!level:error "problem alpha"')).toEqual(['Web problem alpha']);
    expect(await titles('web !level:warning problem')).toEqual([
      'Web problem bravo',
      'Web problem charlie',
      'Web problem delta',
      'Web problem echo',
    ]);
    expect(await titles('is:resolved')).toEqual([]);
    expect(await titles('!is:resolved level:warning')).toEqual(['Web problem alpha']);
    expect(await titles('environment:production')).toEqual([]);
    expect(await titles('level:warning', '&status=all')).toEqual(['Web problem alpha']);
    const bad = await issues('query=is%3Abogus');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({
      code: 'invalid_input',
      message: 'invalid search at "is:bogus": is: takes one of unresolved, resolved, ignored, snoozed, all',
    });
    const disagree = await issues('status=resolved&query=is%3Aunresolved');
    expect(disagree.status).toBe(400);
    expect(disagree.body.error?.message).toBe(
      'status "resolved" and the query\'s "is:unresolved" disagree: give the status in one place',
    );
  });

  it('refuses bad query parameters with 400 and the reason', async () => {
    const status = await api<{ error: { code: string; message: string } }>(
      server,
      '/api/v1/organizations/default/projects/web/issues?status=open',
      readWebToken,
    );
    expect(status.status).toBe(400);
    expect(status.body.error).toEqual({
      code: 'invalid_input',
      message: expect.stringMatching(/^invalid query parameter status/),
    });
    const cursor = await api<{ error: { message: string } }>(
      server,
      '/api/v1/organizations/default/projects/web/issues?cursor=zzz',
      readWebToken,
    );
    expect(cursor.body.error.message).toMatch(/invalid cursor/);
    const trace = await api<{ error: { message: string } }>(
      server,
      '/api/v1/organizations/default/projects/web/logs?traceId=xyz',
      readWebToken,
    );
    expect(trace.body.error.message).toMatch(/invalid query parameter traceId: a trace id is 32 hex characters/);
    const level = await api<{ error: { message: string } }>(
      server,
      '/api/v1/organizations/default/projects/web/logs?level=loud',
      readWebToken,
    );
    expect(level.body.error.message).toMatch(/unknown level "loud"/);
    const attribute = await api<{ error: { message: string } }>(
      server,
      '/api/v1/organizations/default/projects/web/logs?attribute=nocolon',
      readWebToken,
    );
    expect(attribute.body.error.message).toMatch(/must look like key:value/);
    const many = Array.from({ length: 21 }, (_, i) => `attribute=a${i}:1`).join('&');
    const tooMany = await api<{ error: { message: string } }>(
      server,
      `/api/v1/organizations/default/projects/web/logs?${many}`,
      readWebToken,
    );
    expect([tooMany.status, tooMany.body.error.message]).toEqual([
      400,
      expect.stringMatching(/21 attribute filters; at most 20/),
    ]);
  });

  it('refuses a cursor made up by hand with 400, and answers 404 for a short id no issue can have', async () => {
    const forged = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');
    const cursors: Array<[string, unknown[]]> = [
      ['issues', ['not a time', 1]],
      ['issues', ['2026-02-30T00:00:00.000000Z', 1]],
      ['issues', ['0000-01-01T00:00:00.000000Z', 1]],
      ['logs', ['0000-01-01T00:00:00.000000Z', 'x']],
      ['issues', ['2026-01-01T00:00:00.000000Z', 1e10]],
      ['logs', ['not a time', 'x']],
    ];
    for (const [list, key] of cursors) {
      const answer = await api<{ error: { message: string } }>(
        server,
        `/api/v1/organizations/default/projects/web/${list}?cursor=${forged(key)}`,
        readWebToken,
      );
      expect([list, key, answer.status, answer.body.error?.message]).toEqual([
        list,
        key,
        400,
        expect.stringMatching(/invalid cursor/),
      ]);
    }
    const far = await api(server, '/api/v1/organizations/default/issues/WEB-2147483648', readWebToken);
    expect(far.status).toBe(404);
  });
});

describe('query parameters', () => {
  const path = (rest: string) => `/api/v1/organizations/default${rest}`;

  it('searches with a NUL as U+FFFD, the way ingest stores it, and never answers 500', async () => {
    for (const rest of [
      '/projects/web/issues?query=%00',
      '/projects/web/issues?query=problem%00',
      '/projects/web/logs?query=%00',
    ]) {
      const response = await api<{ issues?: unknown[]; logs?: unknown[] }>(server, path(rest), readWebToken);
      expect([rest, response.status]).toEqual([rest, 200]);
    }
    // A NUL in the path is a name nothing has.
    expect((await api(server, '/api/v1/organizations/%00/projects', readWebToken)).status).toBe(404);
    expect((await api(server, path('/projects/web%00/issues'), readWebToken)).status).toBe(404);
    expect((await api(server, path('/issues/WEB-1%00'), readWebToken)).status).toBe(404);
  });

  it('refuses a parameter it does not know by name, listing the accepted ones', async () => {
    // An unknown filter was dropped without a word: every environment came back.
    const issues = await api<{ error: { code: string; message: string } }>(
      server,
      path('/projects/web/issues?environment=staging&expand=events'),
      readWebToken,
    );
    expect(issues.status).toBe(400);
    expect(issues.body.error.code).toBe('invalid_input');
    expect(issues.body.error.message).toContain('unknown query parameters "environment", "expand"');
    expect(issues.body.error.message).toContain('the accepted query parameters are status, level, query, sort, limit, cursor');
    const logs = await api<{ error: { message: string } }>(server, path('/projects/web/logs?environment=staging'), readWebToken);
    expect(logs.status).toBe(400);
    expect(logs.body.error.message).toContain(
      'unknown query parameter "environment"; the accepted query parameters are level, query, traceId, sinceMinutes, attribute, limit, cursor',
    );
    for (const rest of ['/projects?organization=other-org', '/issues/WEB-1?expand=events']) {
      const refused = await api<{ error: { message: string } }>(server, path(rest), readWebToken);
      expect([rest, refused.status]).toEqual([rest, 400]);
      expect(refused.body.error.message).toMatch(/^unknown query parameter "\w+"; this takes no query parameters$/);
    }
    // What the API takes still works, repeated attribute filters and paging included.
    const fine = await api(server, path('/projects/web/logs?attribute=a:1&attribute=b:2&limit=5&level=warn,error'), readWebToken);
    expect(fine.status).toBe(200);
  });
});
