import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { AgentToken } from '../core/ports/token-store.ts';
import { createLogger } from '../runtime/logger.ts';
import { createMcpServer } from './mcp-server.ts';
import type { ToolContext } from './tool-kit/tool.ts';
import { renderToolList, sdkToolList } from './sdk-tool-list.ts';
import { ToolList } from './tool-list.ts';
import { AGENT_TOOLS } from './tool-registry.ts';

const logger = createLogger('silent');
const adminToken: AgentToken = {
  id: 1,
  organizationId: 1,
  projectId: null,
  projectSlug: null,
  name: 'admin',
  role: 'admin',
  createdAt: new Date(),
  revokedAt: null,
  lastUsedAt: null,
  createdBy: null,
};
// Listing reads only the caller's token (which tools it may call); no tool runs here.
const listingContext = { token: adminToken } as ToolContext;
const SAFE_INTEGER_BOUND = String(Number.MAX_SAFE_INTEGER);

/** tools/list through the real client, from a server built as /mcp builds one per request. */
async function listed(toolList: ToolList): Promise<Tool[]> {
  const server = createMcpServer(listingContext, logger, toolList);
  const client = new Client({ name: 'tool-list-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await server.close();
  }
}

describe('the tools/list rendering', () => {
  it('is rendered once for every server and request, and is what the SDK itself answers for every tool', async () => {
    let renders = 0;
    const toolList = new ToolList(() => {
      renders += 1;
      return renderToolList(logger);
    });
    const sdk = await sdkToolList(logger);
    const answers = [await listed(toolList), await listed(toolList), await listed(toolList)];
    // Three servers, three tools/list: one rendering, asked for by the servers themselves.
    expect(renders).toBe(1);
    // The SDK's answer, less only the safe-integer bounds (an organization-wide admin may call every tool).
    const sdkWithoutBounds = JSON.parse(JSON.stringify(sdk), (key, value: unknown) =>
      (key === 'minimum' && value === -Number.MAX_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)
        ? undefined
        : value,
    ) as Tool[];
    for (const answer of answers) expect(answer).toEqual(sdkWithoutBounds);
    expect(answers[0]!.map((tool) => tool.name)).toEqual(AGENT_TOOLS.map((tool) => tool.name));
    expect(answers[0]!.map((tool) => tool.inputSchema.additionalProperties)).toEqual(AGENT_TOOLS.map(() => false));
  });

  it('publishes no safe-integer bounds, and keeps the bounds a tool set', async () => {
    // zod gives every .int() the bounds of a safe integer; the SDK publishes them as they are.
    const sdk = JSON.stringify(await sdkToolList(logger));
    expect(sdk).toContain(SAFE_INTEGER_BOUND);
    const tools = await listed(new ToolList(() => renderToolList(logger)));
    const published = JSON.stringify(tools);
    expect(published).not.toContain(SAFE_INTEGER_BOUND);
    // Every integer, input and output, is still published as one: only the bounds went.
    const integers = (json: string) => json.split('"type":"integer"').length - 1;
    expect(integers(published)).toBe(integers(sdk));
    const listIssues = tools.find((tool) => tool.name === 'list_issues')!;
    expect(listIssues.inputSchema.properties!.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
  });

  it('renders concurrent first requests once, and tries again after a failure', async () => {
    let renders = 0;
    const toolList = new ToolList(async () => {
      renders += 1;
      if (renders === 1) throw new Error('first rendering fails');
      return renderToolList(logger);
    });
    const [a, b] = await Promise.allSettled([toolList.get(), toolList.get()]);
    expect([a.status, b.status]).toEqual(['rejected', 'rejected']);
    expect(renders).toBe(1);
    expect((await toolList.get()).length).toBeGreaterThan(0);
    await toolList.get();
    expect(renders).toBe(2);
  });
});
