// The read API's log search over real embedded stores, with its clock in the test's hand.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { createAgentToken } from '../../core/provisioning/agent-tokens.ts';
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
  await stores.logs.insertLogs([log('newest', 1), log('middle', 2), log('oldest', 3)]);
  const app = new Koa();
  app.use(readApiRoutes({ ...stores, baseUrl: 'http://errata.test', maxLogWindowMinutes: 24 * 60, now: () => now }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await stores.close();
});

async function logs(query: string): Promise<{ logs: Array<{ body: string }>; nextCursor: string | null }> {
  const { port } = server.address() as AddressInfo;
  const answer = await fetch(`http://127.0.0.1:${port}/api/v1/organizations/default/projects/web/logs?${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
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
});
