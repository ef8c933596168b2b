// Fuzz targets: a standalone server, or a distributed cluster's ingest and dispatcher roles,
// each provisioned with a project and an upload token for the fuzzer to use.
import type { RoleProcess } from '../support/role-process.ts';
import { runCliJson, type Provisioned } from '../support/standalone-server.ts';
import type { FuzzContext } from './ingest-arbitraries.ts';
import type { FuzzTarget } from './fuzz-ingest.ts';

/** Ingest's memory budget in fuzzed servers (ERRATA_INGEST_MEMORY_BYTES): the memory invariant scales with it. */
export const FUZZ_INGEST_MEMORY_BYTES = 64 * 1024 * 1024;

/** Settings of a fuzzed server: a smaller memory budget, and limits no fuzz run reaches by accident. */
export const FUZZ_ENV: Record<string, string> = {
  ERRATA_INGEST_MEMORY_BYTES: String(FUZZ_INGEST_MEMORY_BYTES),
  ERRATA_RATE_LIMIT_LOGS_PER_MINUTE: String(50_000_000),
  ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE: String(10_000_000),
};

async function contextFor(env: NodeJS.ProcessEnv, p: Provisioned): Promise<FuzzContext> {
  const upload = await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', p.projectSlug], env);
  return {
    projectId: p.projectId,
    publicKey: p.publicKey,
    unknownKey: 'f'.repeat(32),
    organization: p.organization,
    uploadToken: upload.plaintext,
  };
}

export async function standaloneTarget(
  server: { url: string; env: NodeJS.ProcessEnv; child: { pid?: number } },
  p: Provisioned,
): Promise<FuzzTarget> {
  return {
    url: server.url,
    metricsUrls: [server.url],
    healthUrls: [server.url],
    processes: [{ name: 'errata start', pid: server.child.pid! }],
    context: await contextFor(server.env, p),
  };
}

export async function distributedTarget(
  cluster: { env: NodeJS.ProcessEnv; ingest: { url: string } },
  ingests: RoleProcess[],
  dispatchers: RoleProcess[],
  p: Provisioned,
): Promise<FuzzTarget> {
  const roles = [...ingests.map((r) => ['ingest', r] as const), ...dispatchers.map((r) => ['dispatcher', r] as const)];
  return {
    url: cluster.ingest.url,
    metricsUrls: roles.map(([, r]) => r.url),
    healthUrls: roles.map(([, r]) => r.url),
    processes: roles.map(([name, r]) => ({ name: `${name} on :${r.port}`, pid: r.child.pid! })),
    context: await contextFor(cluster.env, p),
  };
}
