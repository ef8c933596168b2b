// The answer to tools/list, rendered once per process. The SDK renders it anew on every request
// (the JSON Schema of twelve tools' zod inputs and outputs, ~35 KB), and /mcp builds a server per
// request; the tools never change while the process runs, so /mcp and the agent manifest serve
// this one rendering, made by the SDK itself and so what it would have answered, less the
// meaningless safe-integer bounds (published-schema.ts). It is the full catalogue: /mcp lists
// each token the part of it the token may call (tool-access.ts), the manifest all of it.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../runtime/logger.ts';
import { toolServer } from './mcp-server.ts';
import { withoutSafeIntegerBounds } from './published-schema.ts';

type ToolListRenderer = () => Promise<Tool[]>;

export class ToolList {
  private rendered: Promise<Tool[]> | undefined;

  constructor(private readonly render: ToolListRenderer) {}

  get(): Promise<Tool[]> {
    // A failed rendering is not kept: the next request tries again.
    this.rendered ??= this.render().catch((error: unknown) => {
      this.rendered = undefined;
      throw error;
    });
    return this.rendered;
  }
}

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
