// One MCP tool's world for its unit test (services/mcp/tools/<tool>.test.ts): the real stores on
// an in-memory PGlite, two organizations (default with projects web and shop, other-org with a web
// of its own), agent tokens of every role, organization-wide and web-scoped, and the MCP server
// /mcp builds (createMcpServer, with toolContext and the tool list as /mcp makes them) reached by the real SDK client
// over an in-memory transport. A call so passes the same strict input validation, role checks,
// envelopes and output-schema validation (zod on the server, the published JSON Schema in the
// client) as over HTTP, without a process or a socket. Events and logs go in through the
// dispatcher's own pipelines, so issues are grouped and counted as they are in production.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'vitest';
import { z } from 'zod';
import { AgentCallLimiter } from '../../services/core/auth/agent-rate-limit.ts';
import type { Role } from '../../services/core/auth/roles.ts';
import { encodeQueuedItem } from '../../services/core/pipeline/queued-item.ts';
import type { AgentToken, Issue, Organization, Project } from '../../services/core/ports/metadata-store.ts';
import { createAgentToken } from '../../services/core/provisioning/agent-tokens.ts';
import { createProject } from '../../services/core/provisioning/projects.ts';
import { eventPipeline } from '../../services/dispatcher/event-pipeline.ts';
import { logPipeline } from '../../services/dispatcher/log-pipeline.ts';
import { toolContext } from '../../services/mcp/mcp-route.ts';
import { createMcpServer } from '../../services/mcp/mcp-server.ts';
import { processToolList } from '../../services/mcp/tool-list.ts';
import { AGENT_TOOLS } from '../../services/mcp/tool-registry.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { createMetrics, outcomeRecorder } from '../../services/runtime/metrics.ts';
import { fromTables } from './text-tables.ts';
import { openEmbeddedStores, type EmbeddedStores } from './embedded-stores.ts';

export const BASE_URL = 'https://errata.test';
/** The retention window tools may search, in minutes: 30 days. */
export const MAX_WINDOW_MINUTES = 30 * 24 * 60;
export const CALLS_PER_MINUTE = 120;
/** For the beforeAll that opens the harness: PGlite's initdb takes about a second on an idle machine, far more on a busy one. */
export const OPEN_TIMEOUT_MS = 60_000;

/** `read`, `triage`, `admin`: organization-wide in default; `…Web`: scoped to default's web; `other`: admin of other-org. */
export type TokenName = Role | `${Role}Web` | 'other';
const TOKENS: Array<[TokenName, Role, 'default' | 'other-org', string | undefined]> = [
  ['read', 'read', 'default', undefined],
  ['triage', 'triage', 'default', undefined],
  ['admin', 'admin', 'default', undefined],
  ['readWeb', 'read', 'default', 'web'],
  ['triageWeb', 'triage', 'default', 'web'],
  ['adminWeb', 'admin', 'default', 'web'],
  ['other', 'admin', 'other-org', undefined],
];

export interface ToolCall {
  isError: boolean;
  /** The text content, joined: the summary and the envelopes, or the error. */
  text: string;
  /** The structured content with its tables read back into records (text-tables.ts), as tests read fields. */
  structured: Record<string, any>;
  /** The structured content exactly as the server sent it. */
  sent: Record<string, unknown>;
}

export interface ToolHarness {
  stores: EmbeddedStores;
  organizations: { default: Organization; other: Organization };
  projects: { web: Project; shop: Project; otherWeb: Project };
  tokens: Record<TokenName, AgentToken>;
  /** The limiter /mcp would count this instance's messages with (the harness counts none itself). */
  limiter: AgentCallLimiter;
  /** The clock the tools read, ms since the epoch; tests may move it. */
  now: number;
  /** Calls one tool as that token; a successful result is checked against the tool's output schema. */
  call(token: TokenName | AgentToken, tool: string, args?: Record<string, unknown>): Promise<ToolCall>;
  /** The tool list as the token's client sees it. */
  listTools(token: TokenName): ReturnType<Client['listTools']>;
  /** Stores one event through the event pipeline (received at `now` unless said) and returns its issue. */
  sendEvent(project: Project, payload: Record<string, unknown>, receivedAt?: number): Promise<Issue>;
  /** Stores one log container ({ items: [...] }) through the log pipeline, received at `now`. */
  sendLogs(project: Project, items: Array<Record<string, unknown>>): Promise<void>;
  close(): Promise<void>;
}

/** `maxWindowMinutes`: what retention keeps (ERRATA_EVENT_RETENTION_DAYS), MAX_WINDOW_MINUTES unless said. */
export async function openToolHarness({ maxWindowMinutes = MAX_WINDOW_MINUTES } = {}): Promise<ToolHarness> {
  const stores = await openEmbeddedStores();
  const { metadata } = stores;
  const organizations = {
    default: await metadata.ensureOrganization('default', 'Default'),
    other: await metadata.ensureOrganization('other-org', 'Other'),
  };
  const project = async (name: string, organization: string) =>
    (await createProject(metadata, { name, organization }, { baseUrl: BASE_URL })).project;
  const projects = {
    web: await project('web', 'default'),
    shop: await project('shop', 'default'),
    otherWeb: await project('web', 'other-org'),
  };
  const tokens = {} as Record<TokenName, AgentToken>;
  for (const [name, role, organization, scope] of TOKENS) {
    const input = { role, organization, name, ...(scope ? { project: scope } : {}) };
    tokens[name] = (await createAgentToken(metadata, input)).token;
  }

  const logger = createLogger('silent');
  const metrics = createMetrics({ processMetrics: false });
  const pipelineDeps = {
    metadata,
    events: stores.events,
    logs: stores.logs,
    outcomes: outcomeRecorder(metrics, 'dispatcher'),
    metrics,
    logger,
  };
  const events = eventPipeline(pipelineDeps);
  const logs = logPipeline(pipelineDeps);
  let queued = 0;
  const record = (kind: 'event' | 'log', id: string, project: Project, payload: unknown, receivedAt: number) => ({
    topic: kind,
    partition: 0,
    offset: String((queued += 1)),
    key: id,
    value: encodeQueuedItem({
      header: { v: 1, kind, id, projectId: project.id, organizationId: project.organizationId, receivedAt: receivedAt / 1000 },
      payload: Buffer.from(JSON.stringify(payload)),
    }),
  });

  const limiter = new AgentCallLimiter(CALLS_PER_MINUTE);
  const clients = new Map<number, Promise<Client>>();
  const deps = { ...stores, baseUrl: BASE_URL, maxWindowMinutes };
  const toolList = processToolList(logger);
  const connect = async (token: AgentToken): Promise<Client> => {
    const context = await toolContext(deps, token, limiter, () => harness.now);
    const server = createMcpServer(context, logger, toolList);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'errata-tool-tests', version: '1.0.0' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    // Listing the tools makes the client check every result against the published output schema.
    await client.listTools();
    return client;
  };
  // One client per token, made on its first call (a token the test made itself included).
  const clientOf = (name: TokenName | AgentToken) => {
    const token = typeof name === 'string' ? tokens[name] : name;
    let client = clients.get(token.id);
    if (!client) clients.set(token.id, (client = connect(token)));
    return client;
  };

  const harness: ToolHarness = {
    stores,
    organizations,
    projects,
    tokens,
    limiter,
    now: Date.now(),
    async call(token, tool, args = {}) {
      const result = (await (await clientOf(token)).callTool({ name: tool, arguments: args })) as {
        isError?: boolean;
        content: Array<{ type: string; text?: string }>;
        structuredContent?: Record<string, unknown>;
      };
      const sent = result.structuredContent ?? {};
      const call = {
        isError: result.isError === true,
        text: result.content.map((c) => c.text ?? '').join('\n'),
        structured: fromTables(sent) as Record<string, any>,
        sent,
      };
      if (!call.isError) expectDeclaredOutput(tool, sent);
      return call;
    },
    async listTools(token) {
      return (await clientOf(token)).listTools();
    },
    async sendEvent(project, payload, receivedAt = harness.now) {
      const id = (payload.event_id as string | undefined) ?? crypto.randomUUID().replaceAll('-', '');
      await events([record('event', id, project, payload, receivedAt)]);
      const stored = await stores.events.getEvent(project.id, id);
      const issue = stored && (await metadata.getIssue(stored.issueId));
      if (!issue) throw new Error(`event ${id} was not stored: ${JSON.stringify(payload).slice(0, 200)}`);
      return issue;
    },
    async sendLogs(project, items) {
      await logs([record('log', crypto.randomUUID().replaceAll('-', ''), project, { items }, harness.now)]);
    },
    async close() {
      for (const client of clients.values()) await (await client).close();
      await stores.close();
    },
  };
  return harness;
}

/**
 * The tool's declared output schema describes exactly what it returned: it parses, and parsing
 * drops nothing (zod strips keys a schema does not declare), so no field goes undocumented.
 */
function expectDeclaredOutput(tool: string, structured: Record<string, unknown>): void {
  const definition = AGENT_TOOLS.find((t) => t.name === tool);
  if (!definition) throw new Error(`no tool ${tool}`);
  expect(z.object(definition.outputSchema).parse(structured), `${tool}: its output schema`).toEqual(structured);
}

/** The one <untrusted-data> envelope that closes a result's text, parsed back. */
export function untrustedEnvelope(call: ToolCall): unknown {
  return envelope(call.text, 'untrusted-data');
}

/** The one <agent-written-data> envelope of a result's text, parsed back. */
export function agentWrittenEnvelope(call: ToolCall): unknown {
  return envelope(call.text, 'agent-written-data');
}

function envelope(text: string, tag: string): unknown {
  expect(text.split(`<${tag}>`), `one <${tag}> marker`).toHaveLength(2);
  expect(text.split(`</${tag}>`), `one </${tag}> marker`).toHaveLength(2);
  expect(text, 'the text is printable ASCII: look-alikes and line separators are escaped').toMatch(/^[\x20-\x7e\n]*$/);
  const inside = text.split(`<${tag}>\n`)[1]!.split(`\n</${tag}>`)[0]!;
  return fromTables(JSON.parse(inside));
}

/** A Sentry event as an SDK sends it: an exception with one in-app frame, in the web app's release. */
export function errorEvent(type: string, value: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    platform: 'node',
    level: 'error',
    release: 'web@1.0.0',
    environment: 'production',
    exception: {
      values: [
        {
          type,
          value,
          stacktrace: { frames: [{ filename: 'app/checkout.js', function: 'checkout', lineno: 12, in_app: true }] },
        },
      ],
    },
    ...extra,
  };
}
