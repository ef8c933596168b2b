import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../runtime/logger.ts';
import { createMcpServer } from './mcp-server.ts';
import { renderToolList, ToolList } from './tool-list.ts';

const logger = createLogger('silent');
const noContext = () => {
  throw new Error('listing runs no tools');
};

/** tools/list through the real client, from a server built as /mcp builds one per request. */
async function listed(toolList?: ToolList): Promise<Tool[]> {
  const server = createMcpServer(noContext, logger, toolList);
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
  it('is rendered once for every server and request, and is what the SDK itself answers', async () => {
    let renders = 0;
    const toolList = new ToolList(() => {
      renders += 1;
      return renderToolList(logger);
    });
    const uncached = await listed();
    const answers = [await listed(toolList), await listed(toolList), await listed(toolList)];
    // Three servers, three tools/list: one rendering, asked for by the servers themselves.
    expect(renders).toBe(1);
    for (const answer of answers) expect(answer).toEqual(uncached);
    expect(uncached.map((tool) => tool.inputSchema.additionalProperties)).toEqual(uncached.map(() => false));
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
