// The read API's log search over real embedded stores, with its clock in the test's hand.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { createAgentToken } from '../../core/provisioning/agent-tokens.ts';
import { createHttpApp } from '../../runtime/http.ts';
import { createLogger } from '../../runtime/logger.ts';
import { createMetrics } from '../../runtime/metrics.ts';
import { readApiRoutes } from './read-api.ts';

const MINUTE = 60_000;
let stores: EmbeddedStores;
let server: Server;
let token: string;
let now = Date.now();

beforeAll(async () => {
  stores = await openEmbeddedStores();
  const organization = await stores.metadata.ensureOrganization('default', 'Default');
  const { project } = await stores.metadata.createProject(
    { organizationId: organization.id, slug: 'web', name: 'web' },
    { publicKey: 'a'.repeat(32), label: 'Default' },
  );
  token = (await createAgentToken(stores.metadata, { organization: 'default', role: 'read', name: 'reader' })).plaintext;
  const log = (body: string, minutesAgo: number) => ({
    id: body,
    projectId: project.id,
    timestamp: (now - minutesAgo * MINUTE) / 1000,
    observedAt: (now - minutesAgo * MINUTE) / 1000,
    traceId: null,
    spanId: null,
    level: 'info' as const,
    severityNumber: 9,
    body,
    attributes: {},
    release: null,
    environment: null,
  });
  await stores.logs.insertLogs([log('newest', 1), log('middle', 2), { ...log('oldest', 3), level: 'warn' as const }]);
  // As large as ingest keeps them: 64 KiB of body and 200 attributes of 8 KiB, about 1.7 MB each.
  const { project: large } = await stores.metadata.createProject(
    { organizationId: organization.id, slug: 'large', name: 'large' },
    { publicKey: 'b'.repeat(32), label: 'Default' },
  );
  const attributes = Object.fromEntries(
    Array.from({ length: 200 }, (_, i) => [`a${i}`, { type: 'string' as const, value: 'v'.repeat(8192) }]),
  );
  await stores.logs.insertLogs(
    Array.from({ length: 6 }, (_, i) => ({
      ...log(`${i}`.padEnd(65_536, '.'), 1 + i / 100),
      id: `large-${i}`,
      projectId: large.id,
      attributes,
    })),
  );
  // With the server's error mapping, so a refused parameter answers 400 as it does in the mcp role.
  const app = createHttpApp({ logger: createLogger('silent'), metrics: createMetrics({ processMetrics: false }), health: [] });
  app.use(readApiRoutes({ ...stores, baseUrl: 'http://errata.test', maxLogWindowMinutes: 24 * 60, now: () => now }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await stores.close();
});

async function get(query: string, project = 'web') {
  const { port } = server.address() as AddressInfo;
  return fetch(`http://127.0.0.1:${port}/api/v1/organizations/default/projects/${project}/logs?${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
}

async function logs(query: string, project = 'web'): Promise<{ logs: Array<{ body: string }>; nextCursor: string | null }> {
  const answer = await get(query, project);
  expect(answer.status).toBe(200);
  return (await answer.json()) as { logs: Array<{ body: string }>; nextCursor: string | null };
}

describe('the read API pages logs', () => {
  it('within the window of its first page, however much later the next is read', async () => {
    const first = await logs('sinceMinutes=5&limit=1');
    expect(first.logs.map((l) => l.body)).toEqual(['newest']);
    const start = now;
    try {
      // 2.5 minutes on, "the last 5 minutes" would start after 'oldest', which the first page did not reach.
      now = start + 2.5 * MINUTE;
      const rest = await logs(`sinceMinutes=5&limit=5&cursor=${encodeURIComponent(first.nextCursor!)}`);
      expect(rest.logs.map((l) => l.body)).toEqual(['middle', 'oldest']);
      expect(rest.nextCursor).toBeNull();
    } finally {
      now = start;
    }
  });

  it('sends the records that fit in about 4 MB, and the rest on the next page, none twice or missed', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const answer = await get(`limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, 'large');
      const text = await answer.text();
      sizes.push(text.length);
      const page = JSON.parse(text) as { logs: Array<{ body: string }>; nextCursor: string | null };
      seen.push(...page.logs.map((l) => l.body[0]!));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThan(4_100_000);
  });
});

describe('the read API filters logs', () => {
  it('takes warning for warn, as search_logs does', async () => {
    expect((await logs('level=warning')).logs.map((l) => l.body)).toEqual(['oldest']);
  });

  it('refuses an attribute filtered twice, which kept only the last condition, and one longer than search_logs takes', async () => {
    const twice = await get('attribute=user:alice&attribute=user:bob');
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { error: { message: string } }).error.message).toContain(
      'attribute "user" is filtered twice: a record has one value per key, so give each key once',
    );
    const long = await get(`attribute=user:${'x'.repeat(501)}`);
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { message: string } }).error.message).toContain('values 500');
  });
});
