// A distributed Errata for one suite, on the shared test servers but isolated from other
// suites: its own Postgres database, ClickHouse database and Kafka topic prefix. `errata
// migrate` prepares them; roles start as separate processes; the real CLI provisions a
// project and an admin token against Postgres. Ingest processes sit behind one round-robin
// address (the public base URL, so DSNs point at it), on ports chosen up front so that a
// restarted ingest comes back behind the same address. Destroying it deletes all three.
import { randomBytes } from 'node:crypto';
import { createClient } from '@clickhouse/client';
import { deleteKafkaPrefixOn } from './kafka-cleanup.ts';
import { withDatabase } from './postgres-database.ts';
import { startRole, type RoleProcess } from './role-process.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.ts';
import { freePort, provision, runCli, type Provisioned } from './standalone-server.ts';

export interface Cluster {
  env: NodeJS.ProcessEnv;
  clickhouseDatabase: string;
  roles: RoleProcess[];
  /** The one address in front of every ingest process. */
  ingest: RoundRobinProxy;
  /** Starts ingest on its n-th reserved port (0-based) behind the shared address. */
  startIngest(n: number): Promise<RoleProcess>;
  start(role: 'ingest' | 'mcp' | 'dispatcher', options?: { port?: number }): Promise<RoleProcess>;
  provision(projectName: string): Promise<Provisioned>;
  /** SQL against this cluster's ClickHouse database (JSON rows). */
  clickhouse<T>(sql: string): Promise<T[]>;
  /** Stops every role still running (SIGTERM, expecting exit 0), then drops the databases and deletes the topics. */
  destroy(): Promise<{ exitCodes: Array<number | null> }>;
}

interface ClusterOptions {
  /** The servers' settings (.errata-infra.env). */
  infra: Record<string, string>;
  env?: Record<string, string>;
  ingestProcesses?: number;
}

export async function createCluster(options: ClusterOptions): Promise<Cluster> {
  const infra = options.infra;
  const ingestPorts = await Promise.all(Array.from({ length: options.ingestProcesses ?? 2 }, () => freePort()));
  const ingest = await startRoundRobinProxy(ingestPorts);
  const postgres = withDatabase(() => infra.ERRATA_POSTGRES_URL!);
  const suffix = randomBytes(4).toString('hex');
  const clickhouseDatabase = `errata_e2e_${suffix}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...infra,
    ERRATA_POSTGRES_URL: await postgres.create(),
    ERRATA_CLICKHOUSE_DATABASE: clickhouseDatabase,
    ERRATA_CLICKHOUSE_BATCH_WAIT_MS: '50',
    ERRATA_KAFKA_TOPIC_PREFIX: `e2e-${suffix}.`,
    ERRATA_KAFKA_PARTITIONS: '4',
    ERRATA_S3_PREFIX: `e2e-${suffix}/`,
    ERRATA_LOG_LEVEL: 'warn',
    ERRATA_BASE_URL: ingest.url,
    MALLOC_ARENA_MAX: '2',
    ...options.env,
  };
  const migrated = await runCli(['migrate'], env);
  if (migrated.code !== 0) throw new Error(`errata migrate failed (${migrated.code}): ${migrated.stderr}`);
  const ch = createClient({ url: infra.ERRATA_CLICKHOUSE_URL, database: clickhouseDatabase });
  const roles: RoleProcess[] = [];
  const start = async (role: 'ingest' | 'mcp' | 'dispatcher', startOptions?: { port?: number }) => {
    const process = await startRole(role, env, startOptions);
    roles.push(process);
    return process;
  };
  return {
    env,
    clickhouseDatabase,
    roles,
    ingest,
    startIngest: (n) => start('ingest', { port: ingestPorts[n]! }),
    start,
    provision: (projectName) => provision({ env }, projectName),
    async clickhouse<T>(sql: string) {
      return (await (await ch.query({ query: sql, format: 'JSONEachRow' })).json()) as T[];
    },
    async destroy() {
      const exitCodes: Array<number | null> = [];
      for (const role of roles) exitCodes.push(role.child.exitCode ?? (role.child.signalCode ? null : await role.stop()));
      await ingest.close();
      await ch.command({ query: `DROP DATABASE IF EXISTS ${clickhouseDatabase}` }).catch(() => {});
      await ch.close();
      // Each step whatever became of the others (a fault test may leave a server down): said, not thrown.
      const cleanups = await Promise.allSettled([
        postgres.drop(),
        deleteKafkaPrefixOn(infra.ERRATA_KAFKA_BROKERS!.split(','), env.ERRATA_KAFKA_TOPIC_PREFIX!),
      ]);
      for (const cleanup of cleanups) {
        if (cleanup.status === 'rejected') console.warn('a test cluster was not wholly cleaned up:', cleanup.reason);
      }
      return { exitCodes };
    },
  };
}

export interface FullCluster {
  cluster: Cluster;
  /** Two ingest processes behind `cluster.ingest`. */
  ingests: RoleProcess[];
  /** Two dispatchers in one consumer group. */
  dispatchers: RoleProcess[];
  mcp: RoleProcess;
  p: Provisioned;
}

/** Every role, more than one where the mode allows it, and a project with an admin token. */
export async function startFullCluster(
  infra: Record<string, string>,
  projectName: string,
  env?: Record<string, string>,
): Promise<FullCluster> {
  const cluster = await createCluster({ infra, ...(env ? { env } : {}) });
  const ingests = [await cluster.startIngest(0), await cluster.startIngest(1)];
  const dispatchers = [await cluster.start('dispatcher'), await cluster.start('dispatcher')];
  const mcp = await cluster.start('mcp');
  return { cluster, ingests, dispatchers, mcp, p: await cluster.provision(projectName) };
}
