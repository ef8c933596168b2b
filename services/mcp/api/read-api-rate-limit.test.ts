// The REST API counts each call toward its token's minute, as /mcp counts its messages: past
// ERRATA_API_RATE_LIMIT_PER_MINUTE a call is refused with 429 and Retry-After, and other tokens go on.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { AgentCallLimiter } from '../../core/auth/agent-rate-limit.ts';
import { createAgentToken } from '../../core/provisioning/agent-tokens.ts';
import { createHttpApp } from '../../runtime/http.ts';
import { createLogger } from '../../runtime/logger.ts';
import { createMetrics } from '../../runtime/metrics.ts';
import { readApiRoutes } from './read-api.ts';

let stores: EmbeddedStores;
let server: Server;
const limiter = new AgentCallLimiter(2);

beforeAll(async () => {
  stores = await openEmbeddedStores();
  await stores.metadata.ensureOrganization('default', 'Default');
  const app = createHttpApp({ logger: createLogger('silent'), metrics: createMetrics({ processMetrics: false }), health: [] });
  app.use(readApiRoutes({ ...stores, baseUrl: 'http://errata.test', maxLogWindowMinutes: 60, apiCalls: limiter }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await stores.close();
});

async function projects(token: string): Promise<Response> {
  const { port } = server.address() as AddressInfo;
  return fetch(`http://127.0.0.1:${port}/api/v1/organizations/default/projects`, {
    headers: { authorization: `Bearer ${token}` },
  });
}

describe('the read API under the agent rate limit', () => {
  it('refuses a token past its calls of the minute with 429, and not another token', async () => {
    const mint = async (name: string) =>
      (await createAgentToken(stores.metadata, { organization: 'default', role: 'read', name })).plaintext;
    const busy = await mint('busy');
    expect((await projects(busy)).status).toBe(200);
    expect((await projects(busy)).status).toBe(200);
    const refused = await projects(busy);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('rate_limited');
    expect(error.message).toMatch(/made 2 API calls in the last minute, its limit \(ERRATA_API_RATE_LIMIT_PER_MINUTE\)/);
    expect((await projects(await mint('quiet'))).status).toBe(200);
  });
});
