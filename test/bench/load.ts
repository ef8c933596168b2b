// The load generator both benchmarks share: the 70/30 mix of bodies, an open loop (a fixed
// rate whatever the latency) and a closed loop (N requests in flight), percentiles, the bare
// node:http server every run compares against, and peak RSS from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from '../support/standalone-server.ts';
import { mixedEnvelope, withEventId } from './payloads.ts';

export const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

export interface Result {
  sent: number;
  accepted: number;
  failed: number;
  seconds: number;
  latenciesMs: number[];
}

function post(agent: Agent, url: URL, body: string): Promise<{ status: number; ms: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    req.end(body);
  });
}

// Bodies are generated ahead of time so the generator measures the server, not JSON.stringify;
// each request still carries a new event id, so every one is a new event to process.
export const BODIES = Array.from({ length: 2000 }, (_, i) => mixedEnvelope(i));
let cursor = 0;
const nextBody = () => withEventId(BODIES[cursor++ % BODIES.length]!);

/** A result with nothing sent yet, for a loop to add to. */
export function emptyResult(): Result {
  return { sent: 0, accepted: 0, failed: 0, seconds: 0, latenciesMs: [] };
}

export async function closedLoop(url: URL, seconds: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const result = emptyResult();
  const started = Date.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const { status, ms } = await post(agent, url, nextBody());
        result.sent += 1;
        result.latenciesMs.push(ms);
        if (status === 200) result.accepted += 1;
        else result.failed += 1;
      }
    }),
  );
  result.seconds = (Date.now() - started) / 1000;
  agent.destroy();
  return result;
}

/** Sends at a fixed rate whatever the latency; `result` fills in as answers arrive. */
export async function openLoop(url: URL, rate: number, seconds: number, result: Result): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const started = Date.now();
  const total = rate * seconds;
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(
      post(agent, url, nextBody()).then(({ status, ms }) => {
        result.sent += 1;
        result.latenciesMs.push(ms);
        if (status === 200) result.accepted += 1;
        else result.failed += 1;
      }),
    );
  }
  await Promise.all(inFlight);
  result.seconds = (Date.now() - started) / 1000;
  agent.destroy();
  return result;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

export function describe(name: string, r: Result): string {
  return `${name}: ${r.accepted} accepted in ${r.seconds.toFixed(1)} s = ${(r.accepted / r.seconds).toFixed(0)} events/s, failed ${r.failed}, p50 ${percentile(r.latenciesMs, 50).toFixed(2)} ms, p99 ${percentile(r.latenciesMs, 99).toFixed(2)} ms`;
}

export async function startBare(): Promise<{ child: ChildProcess; url: URL }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'bin', 'run-ts.js'), join(REPO_ROOT, 'test', 'bench', 'bare-server.ts'), String(port)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { child, url: new URL(`http://127.0.0.1:${port}/api/1/envelope/`) };
}
