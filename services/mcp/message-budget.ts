// How /mcp meters a request before anything in it runs: every JSON-RPC message counts toward the
// token's limit (ERRATA_AGENT_RATE_LIMIT_PER_MINUTE), tools/list and initialize as much as a tool
// call, and each message of a batch on its own; a batch that would cross the limit is refused
// whole. A batch over MAX_BATCH_MESSAGES is refused outright: MCP clients send one message per
// request, and a 100-message tools/list batch answered 3 MB for half a second of the main thread.
// An empty batch is refused too (JSON-RPC's "invalid request"): it held no message to count, so
// a token over its limit still had a server built for it and 202 back.
import type { AgentCallLimiter } from '../core/auth/agent-rate-limit.ts';

const MAX_BATCH_MESSAGES = 20;

type Verdict = { allowed: true } | { allowed: false; status: number; body: unknown; retryAfterSeconds?: number };

export function meterMessages(body: unknown, limiter: AgentCallLimiter, tokenId: number, now: number): Verdict {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) {
    const message =
      'invalid request: an empty batch holds no message; send one JSON-RPC message, or a batch of 1 to ' +
      `${MAX_BATCH_MESSAGES}; nothing was processed`;
    return { allowed: false, status: 400, body: jsonRpcError(-32600, message) };
  }
  if (messages.length > MAX_BATCH_MESSAGES) {
    const message =
      `a batch may hold at most ${MAX_BATCH_MESSAGES} messages; this one holds ${messages.length}: ` +
      'send fewer in each request (MCP clients send one per request); nothing in it was processed';
    return { allowed: false, status: 400, body: jsonRpcError(-32600, message) };
  }
  const decision = limiter.take(tokenId, now, messages.length);
  if (decision.allowed) return { allowed: true };
  const wait = decision.retryAfterSeconds;
  const text =
    messages.length === 1
      ? `rate_limited: this token sent ${decision.limit} messages in the last minute, its limit; retry in ${wait} seconds`
      : `rate_limited: this batch of ${messages.length} messages would take this token over its limit of ${decision.limit} a ` +
        `minute (${decision.remaining} left); nothing in it was processed; retry in ${wait} seconds`;
  const answers = messages.map((message) => refusalOf(message, text)).filter((answer) => answer !== undefined);
  // Requests each get their answer (a tool call its usual tool error, so an agent sees it as the
  // result); a body of notifications alone has nothing to answer, so it gets a plain 429.
  if (answers.length === 0) return { allowed: false, status: 429, body: jsonRpcError(-32000, text), retryAfterSeconds: wait };
  return { allowed: false, status: 200, body: Array.isArray(body) ? answers : answers[0], retryAfterSeconds: wait };
}

function refusalOf(message: unknown, text: string): object | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id, method } = message as { id?: unknown; method?: unknown };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return method === 'tools/call'
    ? { jsonrpc: '2.0', id, result: { isError: true, content: [{ type: 'text', text }] } }
    : { jsonrpc: '2.0', id, error: { code: -32000, message: text } };
}

export function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
