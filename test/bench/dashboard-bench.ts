// npm run bench:dashboard — what the dashboard's pages cost a person with a big project:
// ISSUES issues and EVENTS events (bench/dashboard-seed.ts), the Issues page (default,
// filtered, searched) and the loudest issue's page (24 hours and 14 days), each requested
// REQUESTS times in a row by a signed-in person; p50 and p95 of the time to the whole answer,
// against GET /healthz on the same server as the floor. The Logs page likewise, over LOGS log
// records (bench/log-seed.ts; BENCH_LOGS, default 1,000,000) across the last 24 hours. Standalone, then on Postgres and
// ClickHouse when `npm run infra:up` has run (BENCH_DISTRIBUTED=0 skips that part,
// BENCH_STANDALONE=0 the first). Also the first load of each page in gzipped bytes (HTML, CSS
// and JS together). Prints figures; asserts nothing.
import { request } from 'node:http';
import { loadConfig } from '../../services/runtime/config.ts';
import { composeMcp, openStores } from '../../services/runtime/compose.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { createMetrics } from '../../services/runtime/metrics.ts';
import { createCluster } from '../support/distributed-cluster.ts';
import { FormClient } from '../support/dashboard-forms.ts';
import { PERSON_PASSWORD } from '../support/dashboard-people.ts';
import { readInfraEnv } from '../support/infra-env-file.ts';
import { freePort, removeDir, runCli, runCliJson, startServer, tempDataDir } from '../support/standalone-server.ts';
import { seedProject } from './dashboard-seed.ts';
import { seedLogs } from './log-seed.ts';
import { peakRssMb } from './load.ts';

const ISSUES = Number(process.env.BENCH_ISSUES ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const LOGS = Number(process.env.BENCH_LOGS ?? 1_000_000);
const OWNER = 'bench@example.com';

interface Target {
  name: string;
  url: string;
  /** The origin form posts must come from (ERRATA_BASE_URL). */
  origin: string;
  project: string;
  pid: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function signIn(target: Target): Promise<string> {
  const client = new FormClient(target.url);
  const csrf = await client.token('/login');
  const answer = await client.post('/login', { csrf, email: OWNER, password: PERSON_PASSWORD }, { origin: target.origin });
  if (answer.status !== 303) throw new Error(`signing in answered ${answer.status}`);
  return Object.entries(client.jar)
    .filter(([, value]) => value)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
}

async function get(url: string, cookie: string, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(url, { headers: { cookie, 'accept-encoding': 'gzip', ...headers }, redirect: 'manual' });
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return response;
}

async function timed(
  label: string,
  url: string,
  cookie: string,
  floor?: number,
  headers: Record<string, string> = {},
): Promise<number> {
  for (let i = 0; i < 10; i++) await (await get(url, cookie, headers)).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    await (await get(url, cookie, headers)).arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const ratio = floor ? `  (${(p50 / floor).toFixed(1)}x /healthz)` : '';
  console.log(
    `  ${label.padEnd(30)} p50 ${p50.toFixed(1).padStart(6)} ms  p95 ${percentile(times, 95).toFixed(1).padStart(6)} ms${ratio}`,
  );
  return p50;
}

/** The bytes a first visit moves: the page and its script and stylesheet, as gzip sends them. */
async function firstLoadBytes(url: string, cookie: string): Promise<string> {
  const raw = await (await get(url, cookie)).text();
  const assets = [...raw.matchAll(/(?:src|href)="(\/assets\/app\.[0-9a-f]{12}\.(?:js|css))"/g)].map((m) => m[1]!);
  const html = await wireBytes(url, cookie);
  const sizes = await Promise.all(assets.map((asset) => wireBytes(new URL(asset, url).href, cookie)));
  return `${((html + sizes.reduce((a, b) => a + b, 0)) / 1024).toFixed(1)} KB (html ${(html / 1024).toFixed(1)} KB)`;
}

/** The body's size on the wire, read with node's http client (fetch would decompress it). */
function wireBytes(url: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { cookie, 'accept-encoding': 'gzip' } }, (res) => {
      let size = 0;
      res.on('data', (chunk: Buffer) => (size += chunk.length));
      res.on('end', () => resolve(size));
    });
    req.on('error', reject);
    req.end();
  });
}

async function measure(target: Target): Promise<void> {
  const cookie = await signIn(target);
  const base = `${target.url}/organizations/default/issues`;
  const list = `${base}?project=${encodeURIComponent(target.project)}`;
  // The issue page of the loudest issue, the one whose events cost most to read.
  const loudest = await (await get(`${list}&sort=events`, cookie)).text();
  const shortId = />([A-Z0-9-]+-[0-9A-Z]+)</.exec(loudest)?.[1];
  if (!shortId) throw new Error('no short id on the Issues page');
  const logs = `${target.url}/organizations/default/logs?project=${encodeURIComponent(target.project)}`;
  const pages: Array<[string, string]> = [
    ['Logs (last hour)', logs],
    ['Logs (level:error, 24 hours)', `${logs}&window=24h&query=${encodeURIComponent('level:error')}`],
    ['Logs (duration_ms:>1000, hour)', `${logs}&query=${encodeURIComponent('duration_ms:>1000 route:/pay')}`],
    ['Logs (text, 24 hours)', `${logs}&window=24h&query=${encodeURIComponent('upstream timeout')}`],
    ['Issues (default)', list],
    ['Issues (level, environment)', `${list}&query=${encodeURIComponent('level:error environment:production')}`],
    ['Issues (searched)', `${list}&query=${encodeURIComponent('BenchabcError')}`],
    ['issue page (loudest)', `${base}/${shortId}`],
    ['issue page (loudest, 14 days)', `${base}/${shortId}?period=14d`],
    ["What's new (24 hours)", `${target.url}/organizations/default/whats-new`],
  ];
  console.log(
    `${target.name}: ${ISSUES} issues, ${EVENTS} events, ${LOGS} log records; ${REQUESTS} requests per line, one after another`,
  );
  const floor = await timed('GET /healthz', `${target.url}/healthz`, cookie);
  for (const [label, url] of pages) await timed(label, url, cookie, floor);
  // The histograms of the searches by text or attributes, which their pages fetch after loading.
  for (const [label, url] of pages.filter(([name]) => /duration_ms|text/.test(name))) {
    const page = await (await get(url, cookie)).text();
    const fragment = /hx-get="([^"]*\/logs\/volume[^"]*)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
    if (!fragment) throw new Error(`no histogram to fetch on ${label}`);
    await timed(`  its histogram`, new URL(fragment, url).href, cookie, floor, { 'HX-Request': 'true' });
  }
  // Pages read only for their weight: the settings and the rest of issue 18's pages.
  const org = `${target.url}/organizations/default`;
  const project = `${org}/projects/${encodeURIComponent(target.project)}`;
  const weighed: Array<[string, string]> = [
    ...pages,
    ['Releases', `${project}/releases`],
    ['a release', `${project}/releases/${encodeURIComponent('web@1.0.0')}`],
    ['trace view', `${org}/traces/${'1'.padStart(32, '0')}`],
    ['Live tail', `${org}/logs/live?project=${encodeURIComponent(target.project)}`],
    ['Agent tokens', `${org}/settings/agent-tokens`],
    ['Agent activity', `${org}/settings/agent-activity`],
    ['Members', `${org}/settings/members`],
    ['Alert channels', `${org}/alert-channels`],
    ['Alert rules', `${project}/alert-rules`],
    ['Source maps', `${project}/source-maps`],
  ];
  for (const [label, url] of weighed) console.log(`  first load, ${label.padEnd(28)} ${await firstLoadBytes(url, cookie)}`);
  console.log(`  server peak RSS ${peakRssMb(target.pid).toFixed(0)} MB`);
}

async function standalone(): Promise<void> {
  const dir = await tempDataDir();
  const port = await freePort();
  const env = { ...process.env, ERRATA_DATA_DIR: dir, ERRATA_PORT: String(port), ERRATA_BASE_URL: `http://127.0.0.1:${port}` };
  try {
    const created = await runCliJson<{ project: { slug: string; id: number; organizationId?: number } }>(
      ['createproject', '--name', 'Bench'],
      env,
    );
    await createOwner(env);
    const stores = await openStores({ dataDir: dir });
    const started = performance.now();
    try {
      const project = (await stores.metadata.getProject(created.project.id))!;
      await seedProject(stores, project, { issues: ISSUES, events: EVENTS });
      await seedLogs(stores.logs, project.id, LOGS, progress('standalone'));
    } finally {
      await stores.close();
    }
    console.log(`standalone: seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const server = await startServer({ dataDir: dir, port });
    try {
      await measure({
        name: 'standalone',
        url: server.url,
        origin: server.url,
        project: created.project.slug,
        pid: server.child.pid!,
      });
    } finally {
      await server.stop();
    }
  } finally {
    await removeDir(dir);
  }
}

async function distributed(): Promise<void> {
  let infra: Record<string, string>;
  try {
    infra = await readInfraEnv();
  } catch {
    console.log('distributed: skipped (no .errata-infra.env: run `npm run infra:up` first)');
    return;
  }
  const cluster = await createCluster({ infra, ingestProcesses: 1 });
  try {
    const p = await cluster.provision('Bench');
    await createOwner(cluster.env);
    const config = loadConfig(cluster.env);
    const ports = await composeMcp(config, createLogger('warn'), createMetrics({ processMetrics: false }));
    const started = performance.now();
    try {
      const project = (await ports.metadata.getProject(p.projectId))!;
      await seedProject(ports, project, { issues: ISSUES, events: EVENTS });
      await seedLogs(ports.logs, project.id, LOGS, progress('distributed'));
    } finally {
      await ports.close();
    }
    console.log(`Postgres and ClickHouse: seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const mcp = await cluster.start('mcp');
    await measure({
      name: 'mcp role on Postgres and ClickHouse',
      url: mcp.url,
      origin: cluster.env.ERRATA_BASE_URL!,
      project: p.projectSlug,
      pid: mcp.child.pid!,
    });
  } finally {
    await cluster.destroy();
  }
}

/** A line per 100,000 log records seeded, so a long seed shows it is moving. */
function progress(name: string): (done: number) => void {
  const started = performance.now();
  return (done) => {
    if (done % 100_000 === 0 || done === LOGS) {
      console.log(`${name}: ${done} log records seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  };
}

async function createOwner(env: NodeJS.ProcessEnv): Promise<void> {
  const created = await runCli(['createuser', '--email', OWNER, '--owner', '--password-stdin'], env, PERSON_PASSWORD);
  if (created.code !== 0) throw new Error(`errata createuser failed: ${created.stderr}`);
}

if (process.env.BENCH_STANDALONE !== '0') await standalone();
if (process.env.BENCH_DISTRIBUTED !== '0') await distributed();
