// tools/list rendered by the MCP SDK itself, over an in-memory transport (tool-list.ts keeps the
// one rendering of the process and imports this module only when it is first asked for).
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../runtime/logger.ts';
import { toolServer } from './mcp-server.ts';
import { withoutSafeIntegerBounds } from './published-schema.ts';

/** tools/list as the SDK answers it for every tool, over an in-memory transport, then cleaned. */
export async function renderToolList(logger: Logger): Promise<Tool[]> {
  return withoutSafeIntegerBounds(await sdkToolList(logger));
}

/** tools/list exactly as the SDK answers it. */
export async function sdkToolList(logger: Logger): Promise<Tool[]> {
  const server = toolServer(() => {
    throw new Error('the tool list server runs no tools');
  }, logger);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answer = new Promise<JSONRPCMessage>((resolve) => {
    clientSide.onmessage = resolve;
  });
  await server.connect(serverSide);
  await clientSide.start();
  try {
    await clientSide.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const message = (await answer) as { result?: { tools?: Tool[] }; error?: { message: string } };
    if (!message.result?.tools) throw new Error(`tools/list failed: ${message.error?.message ?? 'no tools in the answer'}`);
    return message.result.tools;
  } finally {
    await clientSide.close();
    await server.close();
  }
}
