// The fuzzing suite's runner: sends structure-aware requests (ingest-arbitraries.ts) one at a
// time to a running Errata, standalone or distributed, and holds it to the invariants of
// docs/ingest-limits.md:
//   - every reply is 200 or a documented 4xx/503 with a message, never a 500;
//   - /healthz of every process answers 200 within 1 s throughout;
//   - a request writes to the queue at most its decompressed size, plus 256 bytes per item,
//     plus 4 KiB, and a refused request writes nothing;
//   - every event or log record accepted is stored or counted with a reason by the dispatcher
//     (errata_outcomes_total{stage="dispatcher"}), once the dispatchers have caught up;
//   - memory stays within the ingest memory budget's reach.
// It prints what it saw: cases, replies by status, worst latency, peak RSS.
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import { requestArbitrary, type FuzzContext, type FuzzRequest } from './ingest-arbitraries.ts';

export interface FuzzTarget {
  /** Where SDK and upload requests go. */
  url: string;
  /** Every process that ingests or dispatches: their metrics are summed. */
  metricsUrls: string[];
  /** Every process whose /healthz must keep answering. */
  healthUrls: string[];
  /** Processes whose memory is watched, by name. */
  processes: Array<{ name: string; pid: number }>;
  context: FuzzContext;
}

interface FuzzOptions {
  cases: number;
  seed: number;
  /** ERRATA_INGEST_MEMORY_BYTES of the target: a process may grow by twice this, plus slack. */
  ingestMemoryBytes: number;
  /** How long the dispatchers may take to catch up at the end. */
  drainTimeoutMs?: number;
  print?: (line: string) => void;
}

export interface FuzzReport {
  cases: number;
  seed: number;
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  worstLatencyMs: number;
  worstLatencyKind: string;
  healthChecks: number;
  worstHealthMs: number;
  memory: Array<{ name: string; startRssMiB: number; peakRssMiB: number }>;
  ledger: Record<string, { accepted: number; stored: number; counted: number }>;
  violations: string[];
  seconds: number;
}

/** Statuses docs/ingest-limits.md lists; 408 and 431 are the listener's own. */
const DOCUMENTED = new Set([200, 400, 401, 403, 404, 405, 408, 413, 429, 431, 503]);
/** Reasons the dispatchers count (stage="dispatcher") for items that ingest accepted. */
const DISPATCHER_REASONS = [
  'invalid_json',
  'invalid_envelope',
  'invalid_log',
  'processing_failed',
  'project_missing',
  'duplicate',
];
const QUEUE_BYTES_PER_ITEM = 256;
const QUEUE_BYTES_PER_REQUEST = 4096;
/** Beyond twice the ingest memory budget: the stores, caches and the allocator's own slack. */
const MEMORY_SLACK_BYTES = 256 * 1024 * 1024;

export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const print = options.print ?? ((line: string) => console.log(line));
  const started = performance.now();
  const report: FuzzReport = {
    cases: 0,
    seed: options.seed,
    byStatus: {},
    byKind: {},
    worstLatencyMs: 0,
    worstLatencyKind: '',
    healthChecks: 0,
    worstHealthMs: 0,
    memory: [],
    ledger: {},
    violations: [],
    seconds: 0,
  };
  const startRss = await Promise.all(target.processes.map((p) => memoryOf(p.pid)));
  const health = watchHealth(target.healthUrls, report);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let queued = await queuedBytes(target);

  const property = fc.asyncProperty(requestArbitrary(target.context), async (req) => {
    report.cases += 1;
    report.byKind[req.kind] = (report.byKind[req.kind] ?? 0) + 1;
    const reply = await send(target.url, req, agent);
    report.byStatus[reply.status] = (report.byStatus[reply.status] ?? 0) + 1;
    if (reply.ms > report.worstLatencyMs) [report.worstLatencyMs, report.worstLatencyKind] = [reply.ms, req.kind];
    const problem = replyProblem(req, reply);
    const after = await queuedBytes(target);
    const written = after - queued;
    queued = after;
    const allowed = reply.status === 200 ? req.plainBytes + QUEUE_BYTES_PER_ITEM * req.items + QUEUE_BYTES_PER_REQUEST : 0;
    const violation =
      problem ??
      (written > allowed
        ? `wrote ${written} queue bytes for a ${reply.status} to ${describe(req)}, allowed ${allowed}`
        : undefined);
    if (report.cases % 1000 === 0) print(`fuzz: ${report.cases} cases, ${JSON.stringify(report.byStatus)}`);
    if (violation) throw new Error(violation);
  });
  try {
    await fc.assert(property, { numRuns: options.cases, seed: options.seed });
  } catch (error) {
    // fast-check keeps the property's own error as the cause.
    const cause = (error as Error).cause instanceof Error ? `\n${((error as Error).cause as Error).message}` : '';
    report.violations.push(`${(error as Error).message.split('\n').slice(0, 5).join('\n')}${cause}`);
  } finally {
    agent.destroy();
  }
  await settleLedger(target, report, options.drainTimeoutMs ?? 120_000);
  await health.stop();
  for (const [i, p] of target.processes.entries()) {
    const now = await memoryOf(p.pid);
    report.memory.push({ name: p.name, startRssMiB: mib(startRss[i]!.rss), peakRssMiB: mib(now.hwm) });
    const limit = startRss[i]!.rss + 2 * options.ingestMemoryBytes + MEMORY_SLACK_BYTES;
    if (now.hwm > limit) report.violations.push(`${p.name} peaked at ${mib(now.hwm)} MiB, beyond ${mib(limit)} MiB`);
  }
  report.seconds = Math.round((performance.now() - started) / 1000);
  print(formatReport(report));
  return report;
}

interface Reply {
  status: number;
  body: string;
  ms: number;
}

function send(base: string, req: FuzzRequest, agent: Agent): Promise<Reply> {
  const url = new URL(req.path, base);
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        agent,
        headers: { ...req.headers, 'content-length': String(req.body.length) },
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - began }),
        );
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within 60 s to ${describe(req)}`)));
    outgoing.on('error', (error) => reject(new Error(`${describe(req)}: ${error.message}`)));
    outgoing.end(req.body);
  });
}

/** What is wrong with a reply, if anything. */
function replyProblem(req: FuzzRequest, reply: Reply): string | undefined {
  if (!DOCUMENTED.has(reply.status)) return `${reply.status} to ${describe(req)}: ${reply.body.slice(0, 300)}`;
  if (reply.status < 300 || reply.status === 408 || reply.status === 431 || (req.method === 'OPTIONS' && reply.status < 400))
    return undefined;
  let message: unknown;
  try {
    const json = JSON.parse(reply.body) as { error?: { message?: unknown }; detail?: unknown };
    message = json.error?.message ?? json.detail;
  } catch {
    message = undefined;
  }
  return typeof message === 'string' && message.length > 10
    ? undefined
    : `${reply.status} without a message to ${describe(req)}: ${reply.body.slice(0, 300)}`;
}

function describe(req: FuzzRequest): string {
  const encoding = req.headers['content-encoding'] ? ` (${req.headers['content-encoding']})` : '';
  return `${req.kind} ${req.method} ${req.path}${encoding}, ${req.body.length} bytes sent, ${req.plainBytes} plain, ${req.items} items`;
}

async function metricsOf(target: FuzzTarget): Promise<string[]> {
  return Promise.all(target.metricsUrls.map(async (url) => (await fetch(`${url}/metrics`)).text()));
}

/** Sum over every process of the series of `name` whose labels include `labels`. */
function sum(texts: string[], name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const text of texts) {
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
        total += Number(line.split(' ').pop());
    }
  }
  return total;
}

async function queuedBytes(target: FuzzTarget): Promise<number> {
  return sum(await metricsOf(target), 'errata_queue_published_bytes_total');
}

/** Waits for the dispatchers to account for everything ingest accepted, then records the ledger. */
async function settleLedger(target: FuzzTarget, report: FuzzReport, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const texts = await metricsOf(target);
    const balanced = (['error', 'log_item'] as const).every((category) => {
      const accepted = sum(texts, 'errata_ingest_accepted_total', { category });
      const stored = sum(texts, 'errata_pipeline_processed_total', { category });
      const counted = DISPATCHER_REASONS.reduce(
        (total, reason) => total + sum(texts, 'errata_outcomes_total', { reason, category, stage: 'dispatcher' }),
        0,
      );
      report.ledger[category] = { accepted, stored, counted };
      return accepted === stored + counted;
    });
    if (balanced) return;
    if (Date.now() > deadline) {
      report.violations.push(`accepted items neither stored nor counted: ${JSON.stringify(report.ledger)}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function watchHealth(urls: string[], report: FuzzReport): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        urls.map(async (url) => {
          const began = performance.now();
          const status = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
            (response) => response.status,
            (error: Error) => error.name,
          );
          const ms = performance.now() - began;
          report.healthChecks += 1;
          report.worstHealthMs = Math.max(report.worstHealthMs, ms);
          if (status !== 200) report.violations.push(`${url}/healthz answered ${status} after ${Math.round(ms)} ms`);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

async function memoryOf(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

const mib = (bytes: number) => Math.round(bytes / (1024 * 1024));

function formatReport(report: FuzzReport): string {
  const lines = [
    `fuzz: ${report.cases} cases in ${report.seconds} s (seed ${report.seed})`,
    `  replies by status: ${Object.entries(report.byStatus)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ')}`,
    `  requests by kind: ${Object.entries(report.byKind)
      .map(([kind, count]) => `${kind}: ${count}`)
      .join(', ')}`,
    `  worst latency: ${Math.round(report.worstLatencyMs)} ms (${report.worstLatencyKind})`,
    `  /healthz: ${report.healthChecks} checks, worst ${Math.round(report.worstHealthMs)} ms`,
    ...report.memory.map((m) => `  ${m.name}: RSS ${m.startRssMiB} MiB at the start, peak ${m.peakRssMiB} MiB`),
    ...Object.entries(report.ledger).map(
      ([category, l]) => `  ${category}: ${l.accepted} accepted, ${l.stored} stored, ${l.counted} counted with a reason`,
    ),
    report.violations.length === 0 ? '  no violations' : `  VIOLATIONS:\n    ${report.violations.join('\n    ')}`,
  ];
  return lines.join('\n');
}
