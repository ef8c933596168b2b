// npm run bench:mcp — what an agent's tool call costs on a standalone server holding a few
// thousand events: sequential calls through the real MCP client (each one a POST that builds
// a fresh stateless server), per tool, against GET /healthz on the same server as the floor:
// calls a second, latency, and the server's CPU per call (every thread, from /proc).
// Prints figures; asserts nothing.
import { connectAgent } from '../support/mcp-client.ts';
import { waitForIssue } from '../support/issues.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import { provision, removeDir, startServer } from '../support/standalone-server.ts';
import { peakRssMb } from './load.ts';
import { threadCpuSeconds, threadCpuSplit } from './thread-cpu.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 3000);

/** Issue names without digits: grouping masks numbers, so `issue 7` and `issue 8` would be one issue. */
function letters(n: number): string {
  return String.fromCharCode(97 + Math.floor(n / 26), 97 + (n % 26));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed(label: string, call: () => Promise<unknown>, floor?: number): Promise<number> {
  for (let i = 0; i < 20; i++) await call(); // warm-up
  const times: number[] = [];
  const cpuBefore = threadCpuSeconds(server.child.pid!);
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = threadCpuSplit(server.child.pid!, cpuBefore, threadCpuSeconds(server.child.pid!), CALLS);
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const ratio = floor ? `  (${(p50 / floor).toFixed(1)}x /healthz)` : '';
  console.log(
    `${label.padEnd(22)} ${(CALLS / seconds).toFixed(0).padStart(5)} calls/s  p50 ${p50.toFixed(2)} ms  p99 ${percentile(times, 99).toFixed(2)} ms  server ${cpu.all.toFixed(2)} core-ms per call (main thread ${cpu.main.toFixed(2)})${ratio}`,
  );
  return p50;
}

const server = await startServer({ env: { ERRATA_AGENT_RATE_LIMIT_PER_MINUTE: '1000000' } });
try {
  const p = await provision(server, 'Bench');
  // 50 issues, EVENTS events in all, each with a trace id.
  for (let i = 0; i < EVENTS; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        rawRequest(`${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`, {
          body: eventEnvelope({
            event_id: crypto.randomUUID().replace(/-/g, ''),
            message: `bench issue ${letters(j)}`,
            level: 'error',
            contexts: { trace: { trace_id: 'ab'.repeat(16), span_id: 'cd'.repeat(8) } },
          }),
        }),
      ),
    );
  }
  await waitForIssue(server, p, `bench issue ${letters(49)}`, EVENTS / 50);
  // A client per line: the SDK client keeps one abort listener per request it made on a shared
  // signal (client-side; Node warns past 1,500), which has nothing to do with the server.
  let agent = await connectAgent(server.url, p.token);
  const shortId = (await agent.call('list_issues', { project: p.projectSlug, limit: 1 })).structured.issues[0].shortId as string;
  const fresh = async () => {
    await agent.close();
    agent = await connectAgent(server.url, p.token);
  };
  console.log(`mcp benchmark: ${EVENTS} events on 50 issues; ${CALLS} sequential calls per line, one client`);
  const floor = await timed('GET /healthz', () => fetch(`${server.url}/healthz`).then((r) => r.arrayBuffer()));
  await timed('whoami', () => agent.call('whoami'), floor);
  await fresh();
  await timed('list_issues (25)', () => agent.call('list_issues', { project: p.projectSlug }), floor);
  await fresh();
  await timed('get_issue_context', () => agent.call('get_issue_context', { shortId }), floor);
  await fresh();
  await timed('whats_new', () => agent.call('whats_new', {}), floor);
  await fresh();
  await timed('search_logs', () => agent.call('search_logs', { project: p.projectSlug }), floor);
  console.log(`server peak RSS ${peakRssMb(server.child.pid!).toFixed(0)} MB`);
  await agent.close();
} finally {
  await server.stop();
  await removeDir(server.dataDir);
}
