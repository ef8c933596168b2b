// The live tail's Server-Sent Events stream over plain HTTP, against a real server holding two
// organizations: the session is checked before anything streams, a member tails a project and
// sees what a real @sentry/node client (test/clients/node) logs, another organization's project
// is a 404, a bad filter is a 400 saying why, and a person's tails are limited in number, a
// tail's place coming back when its client goes away (the server closed it and its poll loop),
// and a tail stops once its person signs out.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson } from '../../support/dashboard-people.ts';
import type { FormClient } from '../../support/dashboard-forms.ts';
import { SseReader } from '../../support/sse-reader.ts';
import { addOrganization } from '../../support/embedded-admin.ts';
import {
  eventually,
  REPO_ROOT,
  runCliJson,
  runProcess,
  startServer,
  stopAndRemove,
  initializedDataDir,
  type StandaloneServer,
} from '../../support/standalone-server.ts';

const CLIENT_DIR = join(REPO_ROOT, 'test', 'clients', 'node');
const STREAM = '/organizations/default/logs/live/stream';

let server: StandaloneServer;
let member: { email: string; client: FormClient };
let tailedDsn: string;

beforeAll(async () => {
  // Both organizations' projects are made before the server starts, while the CLI may open the
  // database itself: a project only the other organization has, whose slug must not reach across.
  const dataDir = await initializedDataDir();
  const offline = { ...process.env, ERRATA_DATA_DIR: dataDir };
  await runCliJson(['createproject', '--name', 'Tailed'], offline);
  await addOrganization(dataDir, 'other-org');
  await runCliJson(['createproject', '--name', 'Billing', '--organization', 'other-org'], offline);
  server = await startServer({ dataDir });
  // Asked of the running server: its DSNs name its own address.
  const listed = await runCliJson<{ projects: Array<{ slug: string; dsns: Array<{ dsn: string }> }> }>(
    ['listprojects', '--organization', 'default'],
    server.env,
  );
  tailedDsn = listed.projects.find((p) => p.slug === 'tailed')!.dsns[0]!.dsn;
  member = await signedInPerson(server, 'member');
}, 300_000);
afterAll(async () => {
  if (server) await stopAndRemove(server);
});

function cookieOf(client: FormClient): string {
  return Object.entries(client.jar)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
}

function openStream(query: string, client: FormClient | undefined, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}${STREAM}?${query}`, {
    redirect: 'manual',
    headers: { accept: 'text/event-stream', ...(client ? { cookie: cookieOf(client) } : {}) },
    ...(signal ? { signal } : {}),
  });
}

describe('the live tail stream', () => {
  it('sends a signed-out request to sign in, never a stream', async () => {
    const answer = await openStream('project=tailed', undefined);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/login?next=${encodeURIComponent(`${STREAM}?project=tailed`)}`);
    expect(answer.headers.get('content-type')).not.toContain('text/event-stream');
    await answer.body?.cancel();
  });

  it('streams what a real SDK logs to a member, as it arrives, filtered by level', async () => {
    const marker = `m${randomUUID().slice(0, 8)}`;
    const abort = new AbortController();
    const answer = await openStream('project=tailed&level=warn&level=error', member.client, abort.signal);
    try {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('text/event-stream');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const events = new SseReader(answer);
      expect(JSON.parse((await events.until('started')).data)).toEqual({ maxMinutes: 10, maxPerSecond: 100 });

      const sent = await runProcess(process.execPath, ['send-events.cjs', tailedDsn, 'logs', marker], { cwd: CLIENT_DIR });
      expect(sent.code, sent.stderr).toBe(0);
      // The client logs info, warn and error; the filter lets warn and error through, in order.
      const first = JSON.parse((await events.until('record')).data);
      const second = JSON.parse((await events.until('record')).data);
      expect([first, second].map((r) => [r.level, r.body])).toEqual([
        ['warn', `Node log warn ${marker}`],
        ['error', `Node log error ${marker} for cart 42`],
      ]);
      expect(first).toMatchObject({ id: expect.any(String), timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    } finally {
      abort.abort();
    }
  });

  it("is a 404 for another organization's project, on the stream and on the page", async () => {
    const stream = await openStream('project=billing', member.client);
    expect(stream.status).toBe(404);
    expect(stream.headers.get('content-type')).toContain('text/html');
    expect(await stream.text()).toContain('No project &quot;billing&quot; in default');
    const page = await member.client.get('/organizations/default/logs/live?project=billing');
    expect(page.status).toBe(404);
  });

  it('refuses a bad filter, saying what to send', async () => {
    const answer = await openStream(`project=tailed&trace=not-a-trace`, member.client);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('trace &quot;not-a-trace&quot; is not a trace id: it is 32 hexadecimal characters');
  });

  it('stops a tail within seconds of its person signing out', async () => {
    const person = await signedInPerson(server, 'member');
    const abort = new AbortController();
    try {
      const events = new SseReader(await openStream('project=tailed', person.client, abort.signal));
      await events.until('started');
      const csrf = await person.client.token('/account');
      expect((await person.client.post('/logout', { csrf })).status).toBe(303);
      const stopped = JSON.parse((await events.until('stopped')).data);
      expect(stopped.message).toMatch(/^Your session ended/);
      expect(await events.next()).toBeUndefined();
    } finally {
      abort.abort();
    }
  });

  it('allows a person 3 tails at once, and gives a place back when its client goes away', async () => {
    const person = await signedInPerson(server, 'member');
    const aborts = [new AbortController(), new AbortController(), new AbortController()];
    try {
      for (const abort of aborts) {
        const events = new SseReader(await openStream('project=tailed', person.client, abort.signal));
        await events.until('started');
      }
      const refused = new SseReader(await openStream('project=tailed', person.client));
      expect(JSON.parse((await refused.until('refused')).data).message).toBe(
        'You have 3 live tails open already, the most at once. Close one (another tab) and start again.',
      );
      expect(await refused.next()).toBeUndefined();
      // Someone else is not counted against this person.
      const other = new AbortController();
      await new SseReader(await openStream('project=tailed', member.client, other.signal)).until('started');
      other.abort();

      aborts[0]!.abort();
      // The server notices the closed connection, stops that tail and frees its place.
      const next = new AbortController();
      aborts.push(next);
      await eventually(async () => {
        const reader = new SseReader(await openStream('project=tailed', person.client, next.signal));
        return (await reader.next())?.event === 'started' ? true : undefined;
      }, "a place for a fourth tail once the first tail's client went away");
    } finally {
      for (const abort of aborts) abort.abort();
    }
  });
});
