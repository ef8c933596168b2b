// The record of a /mcp request's tool calls, for the dashboard's Agent activity page: one row per
// tools/call message, written once its answer has been handed to the transport (so recording
// never delays an answer), or at once as rate_limited when the request is refused before any
// message runs (message-budget.ts). callTool (mcp-server.ts) notes how a call it ran ended;
// a call it never ran (invalid arguments, an unknown tool: the SDK answers those) is an error.
// A failed write is logged, without the arguments, and the agent never hears of it.
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { argumentSummary } from '../core/agent/argument-summary.ts';
import { touchedIssues } from '../core/agent/touched-issues.ts';
import type { AgentActivityStore, AgentCallOutcome, NewAgentCall } from '../core/ports/agent-activity-store.ts';
import type { AgentToken } from '../core/ports/token-store.ts';
import type { Logger } from '../runtime/logger.ts';

/** How a call that reached callTool ended. */
export interface CallNote {
  outcome: AgentCallOutcome;
  reason: string | null;
  /** The structured result of a call that succeeded, for the issues it names. */
  result?: unknown;
}

interface NamedCall {
  id: RequestId | undefined;
  tool: string;
  args: unknown;
}

interface RecorderDeps {
  store: Pick<AgentActivityStore, 'recordAgentCalls'>;
  logger: Logger;
  now: () => number;
}

export class CallRecorder {
  private readonly calls: NamedCall[];
  private readonly notes = new Map<RequestId, CallNote>();
  private readonly startedAt: number;

  constructor(
    private readonly deps: RecorderDeps,
    private readonly token: AgentToken,
    body: unknown,
  ) {
    this.startedAt = deps.now();
    this.calls = (Array.isArray(body) ? body : [body]).flatMap(namedCall);
  }

  note(id: RequestId, note: CallNote): void {
    this.notes.set(id, note);
  }

  /** Every tool call of a request refused whole by the rate limit. */
  rateLimited(): void {
    this.write(this.calls.map((call) => this.row(call, { outcome: 'rate_limited', reason: null })));
  }

  /** Records each tool call's answer after the transport has sent it. */
  watch(transport: StreamableHTTPServerTransport): void {
    if (this.calls.length === 0) return;
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      try {
        await send(message, options);
      } finally {
        this.answered(message);
      }
    };
  }

  private answered(message: JSONRPCMessage): void {
    if (!('id' in message) || message.id === undefined || 'method' in message) return;
    const call = this.calls.find((c) => c.id === message.id);
    if (!call) return;
    const result = 'result' in message ? (message.result as { isError?: unknown; content?: unknown }) : undefined;
    const failed = !result || result.isError === true;
    const noted = this.notes.get(message.id);
    // The SDK answers on its own what never reached callTool (invalid arguments, an unknown
    // tool), and turns a result its output schema refuses into an error after callTool noted ok.
    const note: CallNote =
      noted && !(noted.outcome === 'ok' && failed) ? noted : { outcome: 'error', reason: sdkErrorKind(result) };
    this.write([this.row(call, note)]);
  }

  private row(call: NamedCall, note: CallNote): NewAgentCall {
    return {
      organizationId: this.token.organizationId,
      tokenId: this.token.id,
      tokenName: this.token.name,
      tool: call.tool,
      at: new Date(this.startedAt),
      durationMs: this.deps.now() - this.startedAt,
      outcome: note.outcome,
      reason: note.reason,
      argumentSummary: argumentSummary(call.args),
      issues: touchedIssues(call.args, note.outcome === 'ok' ? note.result : undefined),
    };
  }

  private write(rows: NewAgentCall[]): void {
    if (rows.length === 0) return;
    this.deps.store.recordAgentCalls(rows).catch((error: unknown) => {
      // The error's kind only: a driver's message may quote a value, and values came from the agent.
      const kind = error instanceof Error ? error.name : typeof error;
      this.deps.logger.warn({ tokenId: this.token.id, calls: rows.length, error: kind }, 'agent calls not recorded');
    });
  }
}

function namedCall(message: unknown): NamedCall[] {
  if (typeof message !== 'object' || message === null) return [];
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return [];
  return [
    {
      id: typeof id === 'string' || typeof id === 'number' ? id : undefined,
      tool: params.name.slice(0, 100),
      args: params.arguments,
    },
  ];
}

/** What kind of error the SDK answered with, from its own wording (it has no code for these). */
function sdkErrorKind(result: { content?: unknown } | undefined): string {
  if (!result) return 'protocol_error';
  const content = Array.isArray(result.content) ? (result.content[0] as { text?: unknown } | undefined) : undefined;
  const text = typeof content?.text === 'string' ? content.text : '';
  if (/input validation error|invalid arguments/i.test(text)) return 'invalid_arguments';
  if (/output validation error/i.test(text)) return 'invalid_output';
  if (/tool .* not found/i.test(text)) return 'unknown_tool';
  return 'error';
}
