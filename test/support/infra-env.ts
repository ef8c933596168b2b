// The settings of the real servers (Postgres, ClickHouse, Kafka, MinIO) that the distributed
// suites run against, as test/distributed/global-setup.ts provided them.
import { inject } from 'vitest';

export function infraEnv(): Record<string, string> {
  const env = inject('infraEnv');
  if (!env) throw new Error('no infrastructure settings: run this suite with `npm run test:distributed`');
  return env;
}

export function infraSetting(name: string): string {
  const value = infraEnv()[name];
  if (!value) throw new Error(`${name} is missing from .errata-infra.env: run npm run infra:up`);
  return value;
}
