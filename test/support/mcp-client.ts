// The real MCP client (@modelcontextprotocol/sdk Client over Streamable HTTP) as the agent
// suites use it, and the real @sentry/node scenarios that give the tools something to show.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT, runProcess } from './standalone-server.ts';
import { fromTables } from './text-tables.ts';

export interface ToolCall {
  isError: boolean;
  text: string;
  /** The structured content with its tables read back into records (text-tables.ts), as tests read fields. */
  structured: Record<string, any>;
  /** The structured content exactly as the server sent it. */
  sent: Record<string, unknown>;
}

export interface Agent {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolCall>;
  close(): Promise<void>;
}

export async function connectAgent(url: string, token: string): Promise<Agent> {
  const client = new Client({ name: 'errata-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    client,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        content: Array<{ type: string; text?: string }>;
        structuredContent?: Record<string, unknown>;
      };
      const sent = result.structuredContent ?? {};
      return {
        isError: result.isError === true,
        text: result.content.map((c) => c.text ?? '').join('\n'),
        structured: fromTables(sent) as Record<string, any>,
        sent,
      };
    },
    close: () => client.close(),
  };
}

const SCENARIOS = join(REPO_ROOT, 'test', 'clients', 'node', 'agent-scenarios.cjs');

/** Runs a @sentry/node scenario (test/clients/node/agent-scenarios.cjs), from environment "agents" unless told; returns the event ids. */
export async function sendScenario(
  dsn: string,
  scenario: string,
  marker: string,
  release: string,
  count = 1,
  environment = 'agents',
): Promise<string[]> {
  const result = await runProcess(process.execPath, [SCENARIOS, dsn, scenario, marker, release, String(count), environment]);
  if (result.code !== 0) throw new Error(`scenario ${scenario} failed (${result.code}): ${result.stderr}`);
  return (JSON.parse(result.stdout) as { eventIds: string[] }).eventIds;
}
