// npm run bench:agent-loop — what the fix-issues loop costs an agent, in tokens: a real
// @sentry/node shop (test/clients/node/agent-loop-app.cjs: eight kinds of error over three
// releases and two environments, a noisy warning, logs in each request's trace) sends to a
// standalone server, and an agent works through it with the real MCP client: what is new, the
// list, the context of the loudest bug and its logs, a resolve with the release that fixes it,
// the noise ignored in bulk; then the fixed release ships, the bug comes back, and the agent
// checks. Each call's text content and structured content are counted in tokens with the
// o200k_base encoding (js-tiktoken) as a yardstick; the model that reads them may count a little
// differently. Prints figures; asserts nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { waitForIssue } from '../support/issues.ts';
import { connectAgent, type Agent, type ToolCall } from '../support/mcp-client.ts';
import { provision, REPO_ROOT, runProcess, startServer, stopAndRemove } from '../support/standalone-server.ts';

const APP = join(REPO_ROOT, 'test', 'clients', 'node', 'agent-loop-app.cjs');
const encoding = getEncoding('o200k_base');
const tokens = (text: string) => encoding.encode(text).length;
// AGENT_LOOP_DUMP=<dir> writes each answer there (NN-tool.txt and NN-tool.json), to read what costs.
const dumpDir = process.env.AGENT_LOOP_DUMP;
if (dumpDir) mkdirSync(dumpDir, { recursive: true });

interface Measured {
  tool: string;
  textTokens: number;
  structuredTokens: number;
  bytes: number;
  structuredBytes: number;
}

async function ship(dsn: string, release: string): Promise<void> {
  const result = await runProcess(process.execPath, [APP, dsn, release]);
  if (result.code !== 0) throw new Error(`the shop's ${release} failed (${result.code}): ${result.stderr}`);
}

/** The first string under a key named `key`, anywhere in a tool's structured answer. */
function find(value: unknown, key: string): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = find(item, key);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === key && typeof v === 'string') return v;
      const found = find(v, key);
      if (found) return found;
    }
  }
  return undefined;
}

const server = await startServer();
try {
  const p = await provision(server, 'Shop');
  for (const release of ['shop@1.0.0', 'shop@1.1.0', 'shop@1.2.0']) await ship(p.dsn, release);
  const checkout = await waitForIssue(server, p, "reading 'total'", 9);
  await waitForIssue(server, p, 'slow response', 12);

  const agent: Agent = await connectAgent(server.url, p.token);
  const measured: Measured[] = [];
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<ToolCall> => {
    const result = await agent.call(tool, args);
    if (result.isError) throw new Error(`${tool} failed: ${result.text}`);
    // What the server sent, tables and all: what a client passes on to a model.
    const structured = JSON.stringify(result.sent);
    if (dumpDir) {
      const name = `${String(measured.length + 1).padStart(2, '0')}-${tool}`;
      writeFileSync(join(dumpDir, `${name}.txt`), result.text);
      writeFileSync(join(dumpDir, `${name}.json`), JSON.stringify(result.sent, null, 2));
    }
    measured.push({
      tool,
      textTokens: tokens(result.text),
      structuredTokens: tokens(structured),
      bytes: Buffer.byteLength(result.text) + Buffer.byteLength(structured),
      structuredBytes: Buffer.byteLength(structured),
    });
    return result;
  };

  await call('whoami');
  await call('whats_new', { project: p.projectSlug });
  const listed = await call('list_issues', { project: p.projectSlug });
  const context = await call('get_issue_context', { shortId: checkout.shortId });
  const traceId = find(context.structured, 'traceId');
  await call('search_logs', { project: p.projectSlug, ...(traceId ? { traceId } : { query: 'failed' }) });
  const other = (listed.structured.issues as Array<{ shortId: string }>).find((i) => i.shortId !== checkout.shortId);
  if (other) await call('get_issue_context', { shortId: other.shortId });
  await call('update_issue', {
    shortId: checkout.shortId,
    action: 'resolve',
    release: 'shop@1.3.0',
    commit: 'a1b2c3d',
    note: 'cart.total is computed before checkout',
  });
  await call('bulk_update_issues', { project: p.projectSlug, query: 'slow response', action: 'ignore' });
  await call('check_resolution', { shortId: checkout.shortId });

  await ship(p.dsn, 'shop@1.3.0');
  await waitForIssue(server, p, "reading 'total'", 12);
  await call('whats_new', { project: p.projectSlug, release: 'shop@1.3.0' });
  await call('check_resolution', { shortId: checkout.shortId });
  await call('get_issue_context', { shortId: checkout.shortId });
  await call('list_issues', { project: p.projectSlug, query: 'is:unresolved' });
  await agent.close();

  console.log(`agent loop: ${measured.length} calls on a shop with its issues over four releases`);
  console.log(`  ${'tool'.padEnd(22)} ${'text'.padStart(7)} ${'structured'.padStart(11)} ${'bytes'.padStart(8)}`);
  for (const m of measured) {
    console.log(
      `  ${m.tool.padEnd(22)} ${String(m.textTokens).padStart(7)} ${String(m.structuredTokens).padStart(11)} ${String(m.bytes).padStart(8)}`,
    );
  }
  const sum = (pick: (m: Measured) => number) => measured.reduce((total, m) => total + pick(m), 0);
  const context3 = measured.filter((m) => m.tool === 'get_issue_context');
  console.log(
    `  ${'total'.padEnd(22)} ${String(sum((m) => m.textTokens)).padStart(7)} ${String(sum((m) => m.structuredTokens)).padStart(11)} ${String(sum((m) => m.bytes)).padStart(8)}`,
  );
  console.log(
    `  get_issue_context: ${context3.length} calls, ${context3.reduce((t, m) => t + m.bytes, 0)} bytes, ` +
      `${Math.round((100 * context3.reduce((t, m) => t + m.textTokens + m.structuredTokens, 0)) / (sum((m) => m.textTokens) + sum((m) => m.structuredTokens)))}% of the tokens`,
  );
  console.log(`  get_issue_context structured content: ${context3.map((m) => m.structuredBytes).join(', ')} bytes`);
} finally {
  await stopAndRemove(server);
}
