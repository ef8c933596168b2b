// One /mcp request's exchange, once mcp-route.ts has authenticated and metered it: a fresh MCP
// server with every tool, run as the request's token, over a stateless Streamable HTTP
// transport that writes the answer itself. This module holds /mcp's use of the MCP SDK, so
// mcp-route.ts imports it on the first request rather than at start (docs/benchmarks.md).
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type Koa from 'koa';
import type { Logger } from '../runtime/logger.ts';
import type { CallRecorder } from './call-recorder.ts';
import { createMcpServer } from './mcp-server.ts';
import type { ToolContext } from './tool-kit/tool.ts';
import type { ToolList } from './tool-list.ts';

interface Exchange {
  context: ToolContext;
  logger: Logger;
  toolList: ToolList;
  recorder: CallRecorder;
}

export async function answerMcp(
  ctx: Koa.Context,
  body: unknown,
  { context, logger, toolList, recorder }: Exchange,
): Promise<void> {
  const server = createMcpServer(context, logger, toolList, (id, note) => recorder.note(id, note));
  // The client's Accept order picks the answer's form: JSON first (the SDK client) gets one
  // JSON body; event-stream first gets SSE.
  const enableJsonResponse = ctx.accepts('application/json', 'text/event-stream') === 'application/json';
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
  recorder.watch(transport);
  ctx.res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  ctx.respond = false;
  await transport.handleRequest(ctx.req, ctx.res, body);
  ctx.status = ctx.res.statusCode;
}
