// /mcp: MCP over Streamable HTTP, stateless (a fresh server and transport per request, so any
// mcp replica can answer any request). Every request carries `Authorization: Bearer
// errata_agent_...`, looked up anew, so a revoked token fails on its very next request; each of
// its JSON-RPC messages counts toward the token's rate limit before any runs (message-budget.ts).
// Each tool call is recorded for the Agent activity page once answered (call-recorder.ts).
// POST only: a stateless server has no stream to offer on GET and no session to DELETE.
import type Koa from 'koa';
import { AgentCallLimiter } from '../core/auth/agent-rate-limit.ts';
import { PayloadTooLargeError, UnavailableError } from '../core/errors.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { AgentToken, MetadataStore } from '../core/ports/metadata-store.ts';
import { readJsonBody } from '../runtime/json-body.ts';
import type { Logger } from '../runtime/logger.ts';
import { requireAgentToken } from './agent-auth.ts';
import { CallRecorder } from './call-recorder.ts';
import { jsonRpcError, meterMessages } from './message-budget.ts';
import type { ToolContext } from './tool-kit/tool.ts';
import type { ToolList } from './tool-list.ts';

interface McpRouteDeps {
  metadata: MetadataStore;
  events: EventStore;
  logs: LogStore;
  baseUrl: string;
  logger: Logger;
  /** The process's count of messages per token (the dashboard's Agent tokens page reads it too). */
  limiter: AgentCallLimiter;
  maxWindowMinutes: number;
  /** The process's one rendering of tools/list. */
  toolList: ToolList;
  now?: () => number;
}

/** JSON-RPC requests are small; a megabyte leaves room for any tool's arguments. */
const MAX_BODY_BYTES = 1024 * 1024;

export function mcpRoute(deps: McpRouteDeps): Koa.Middleware {
  const authenticate = requireAgentToken(deps.metadata, deps.now);
  const { limiter } = deps;
  const now = deps.now ?? Date.now;
  return async (ctx, next) => {
    if (ctx.path !== '/mcp' && ctx.path !== '/mcp/') return next();
    ctx.state.route = '/mcp';
    await authenticate(ctx, async () => {
      if (ctx.method !== 'POST') {
        ctx.status = 405;
        ctx.set('Allow', 'POST');
        ctx.body = jsonRpcError(-32000, 'this MCP server is stateless: send each JSON-RPC message as an HTTP POST');
        return;
      }
      const body = await readJson(ctx);
      if (body === undefined) return;
      const token = ctx.state.token as AgentToken;
      const log = (ctx.state.log as Logger | undefined) ?? deps.logger;
      const recorder = new CallRecorder({ store: deps.metadata, logger: log, now }, token, body);
      const verdict = meterMessages(body, limiter, token.id, now());
      if (!verdict.allowed) {
        if (verdict.retryAfterSeconds !== undefined) recorder.rateLimited();
        ctx.status = verdict.status;
        if (verdict.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(verdict.retryAfterSeconds));
        ctx.body = verdict.body;
        return;
      }
      const context = await toolContext(deps, token, limiter, now);
      // The MCP SDK loads with the first request that gets this far, not with the server.
      const { answerMcp } = await import('./mcp-exchange.ts');
      await answerMcp(ctx, body, { context, logger: log, toolList: deps.toolList, recorder });
    });
  };
}

/** What every tool call of a request runs with: the stores, the token, its organization, the instance's settings. */
export async function toolContext(
  deps: Pick<McpRouteDeps, 'metadata' | 'events' | 'logs' | 'baseUrl' | 'maxWindowMinutes'>,
  token: AgentToken,
  limiter: AgentCallLimiter,
  now: () => number,
): Promise<ToolContext> {
  // By its id (the primary key): listing every organization on each call made a call cost more the more
  // organizations the installation has (about 3x at 1,000; docs/benchmarks.md).
  const organization = await deps.metadata.getOrganization(token.organizationId);
  if (!organization) throw new UnavailableError("the token's organization could not be read");
  return {
    metadata: deps.metadata,
    events: deps.events,
    logs: deps.logs,
    token,
    organization,
    baseUrl: deps.baseUrl,
    limiter,
    maxWindowMinutes: deps.maxWindowMinutes,
    now: () => new Date(now()),
  };
}

/** The request body as JSON, or undefined after answering the error itself, as JSON-RPC does. */
async function readJson(ctx: Koa.Context): Promise<unknown> {
  try {
    return (await readJsonBody(ctx.req, MAX_BODY_BYTES)) ?? null;
  } catch (error) {
    const tooLarge = error instanceof PayloadTooLargeError;
    ctx.status = tooLarge ? 413 : 400;
    ctx.body = tooLarge
      ? jsonRpcError(-32600, error.message)
      : jsonRpcError(-32700, 'parse error: the body must be one JSON-RPC message (or a batch) in JSON');
    return undefined;
  }
}
