// Reads .errata-infra.env, the ERRATA_* settings `npm run infra:up` wrote for the real servers
// (Postgres, ClickHouse, Kafka, MinIO). Used by the distributed suite's set-up and the benchmark.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './standalone-server.ts';

const INFRA_ENV_FILE = join(REPO_ROOT, '.errata-infra.env');
export const INFRA_UP = join(REPO_ROOT, 'test', 'infra', 'up.sh');

export async function readInfraEnv(): Promise<Record<string, string>> {
  return parseEnvFile(await readFile(INFRA_ENV_FILE, 'utf8'));
}

export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}
