// A real Prometheus (built by test/setup/build-prometheus.sh) on loopback for one suite: scrapes
// the given targets every second, evaluates the given rules every second, and answers PromQL
// and the alerts API. Its data lives in a temporary directory; stop() ends it by PID.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { prometheusBinaries } from './prometheus-binaries.ts';
import { eventually, freePort } from './standalone-server.ts';

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface PrometheusServer {
  url: string;
  /** An instant query's vector (empty when nothing matches); a query Prometheus refuses throws. */
  query(expr: string): Promise<PromSample[]>;
  /** The alerts currently pending or firing. */
  alerts(): Promise<Array<{ labels: Record<string, string>; state: 'pending' | 'firing' }>>;
  output(): string;
  stop(): Promise<void>;
}

/** How one job is scraped beyond its targets: labels the discovery would add, and whether the target's own labels win. */
interface JobOptions {
  labels?: Record<string, string>;
  honorLabels?: boolean;
}

export async function startPrometheus(options: {
  targets: Record<string, string[]>;
  rules: string;
  jobs?: Record<string, JobOptions>;
}): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'errata-prometheus-'));
  await writeFile(join(dir, 'rules.yaml'), options.rules);
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
    rule_files: [join(dir, 'rules.yaml')],
    scrape_configs: Object.entries(options.targets).map(([job, targets]) => ({
      job_name: job,
      ...(options.jobs?.[job]?.honorLabels ? { honor_labels: true } : {}),
      static_configs: [
        {
          targets: targets.map((url) => new URL(url).host),
          ...(options.jobs?.[job]?.labels ? { labels: options.jobs[job].labels } : {}),
        },
      ],
    })),
  };
  await writeFile(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    prometheusBinaries().prometheus,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const api = async (path: string) => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: any; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus refused ${path}: ${body.error}`);
    return body.data;
  };
  try {
    await eventually(async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined), 'Prometheus to be ready', 60_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return {
    url,
    async query(expr) {
      const data = await api(`/api/v1/query?query=${encodeURIComponent(expr)}`);
      if (data.resultType !== 'vector') throw new Error(`${expr} is a ${data.resultType}, not a vector`);
      return data.result as PromSample[];
    },
    async alerts() {
      return (await api('/api/v1/alerts')).alerts;
    },
    output: () => output,
    stop,
  };
}
