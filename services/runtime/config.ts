// The one place that reads process.env: a zod schema over every ERRATA_ variable, parsed once
// at start-up. A bad value stops the process with a message naming the variable and what it
// expected. The README's table of variables mirrors this file.
import { resolve } from 'node:path';
import { z } from 'zod';
import { parseRoleMapping, type RoleMapping } from '../core/people/oidc-roles.ts';
import type { HttpServerLimits } from './http-server.ts';
import { CLICKHOUSE_DATABASE, KAFKA_BROKER_LIST, KAFKA_TOPIC_PREFIX, OIDC_SCOPES, S3_BUCKET } from './setting-forms.ts';

const MiB = 1024 * 1024;

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);

const schema = z
  .object({
    ERRATA_HOST: z.string().min(1).default('127.0.0.1'),
    ERRATA_PORT: integer(0, 65535).default(8000),
    ERRATA_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    ERRATA_DATA_DIR: z.string().min(1).default('./.errata'),
    ERRATA_ORGANIZATION: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'use lowercase letters, digits, "-" or "_"')
      .default('default'),
    ERRATA_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ERRATA_MAX_EVENT_BYTES: integer(1024).default(1 * MiB),
    ERRATA_MAX_LOG_ITEM_BYTES: integer(1024).default(4 * MiB),
    ERRATA_MAX_REQUEST_BYTES: integer(1024).default(20 * MiB),
    ERRATA_MAX_ENVELOPE_BYTES: integer(1024).default(100 * MiB),
    ERRATA_MAX_ENVELOPE_ITEMS: integer(1, 100_000).default(1000),
    ERRATA_MAX_COMPRESSION_RATIO: integer(10).default(2000),
    ERRATA_INGEST_MEMORY_BYTES: integer(MiB).default(256 * MiB),
    ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE: integer(0).default(120_000),
    ERRATA_RATE_LIMIT_LOGS_PER_MINUTE: integer(0).default(600_000),
    ERRATA_AGENT_RATE_LIMIT_PER_MINUTE: integer(1).default(600),
    ERRATA_API_RATE_LIMIT_PER_MINUTE: integer(1).default(1200),
    ERRATA_QUEUE_MAX_BACKLOG_BYTES: integer(MiB).default(1024 * MiB),
    // Empty is unset (the operator writes an env entry without a value as ""); under 10 would make
    // V8 collect more often than its own lowest factor (1.1) does.
    ERRATA_HEAP_GROWING_PERCENT: z.preprocess(
      (value) => (value === '' ? undefined : value),
      integer(0, 1000)
        .refine((percent) => percent === 0 || percent >= 10, "0 for V8's own, or 10 to 1000")
        .optional(),
    ),
    // Linux's nice values, 0 (as started) to 19 (lowest); 19 was no better than 10 (docs/benchmarks.md).
    ERRATA_DISPATCHER_NICE: integer(0, 19).default(10),
    ERRATA_SHUTDOWN_TIMEOUT_SECONDS: integer(1, 3600).default(30),
    ERRATA_HTTP_HEADERS_TIMEOUT_SECONDS: integer(1, 3600).default(10),
    ERRATA_HTTP_REQUEST_TIMEOUT_SECONDS: integer(1, 3600).default(300),
    ERRATA_HTTP_BODY_TIMEOUT_SECONDS: integer(1, 3600).default(20),
    ERRATA_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: integer(1, 3600).default(65),
    ERRATA_HTTP_MAX_HEADER_BYTES: integer(4096, 1024 * 1024).default(16 * 1024),
    ERRATA_HTTP_MAX_CONNECTIONS: integer(1, 1_000_000).default(4096),
    ERRATA_HTTP_MAX_CONNECTIONS_PER_CLIENT: integer(1, 1_000_000).default(1024),
    ERRATA_TRUSTED_PROXIES: integer(0, 10).default(0),
    ERRATA_EVENT_RETENTION_DAYS: integer(1, 3650).default(90),
    ERRATA_SECRETS_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes), e.g. from `openssl rand -hex 32`')
      .optional(),
    ERRATA_WEBHOOK_ALLOW_HOSTS: z.string().default(''),
    ERRATA_WEBHOOK_CA_FILE: z.string().min(1).optional(),
    ERRATA_WEBHOOK_RETRY_BASE_MS: integer(1, 3_600_000).default(30_000),
    ERRATA_OPERATOR_NAMESPACE: z.string().min(1).max(63).default('default'),
    ERRATA_ALERT_CHANNEL_LIMIT_PER_HOUR: integer(1, 100_000).default(60),
    ERRATA_UPLOAD_MAX_ASSEMBLIES: integer(1, 64).default(2),
    ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT: integer(MiB).default(1024 * MiB),

    // OpenID Connect sign-in, beside passwords: on when the issuer is set (with the rest).
    ERRATA_OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
    ERRATA_OIDC_CLIENT_ID: z.string().min(1).optional(),
    ERRATA_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    ERRATA_OIDC_ROLES: z.string().optional(),
    ERRATA_OIDC_ROLE_CLAIM: z.string().min(1).default('groups'),
    ERRATA_OIDC_SCOPES: z.string().regex(OIDC_SCOPES.pattern, OIDC_SCOPES.message).default('openid email profile'),
    ERRATA_OIDC_CREATE_USERS: z.enum(['true', 'false', '1', '0']).default('false'),
    ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL: z.enum(['true', 'false', '1', '0']).default('false'),
    ERRATA_OIDC_NAME: z.string().min(1).max(60).default('single sign-on'),

    // Distributed mode: each set variable switches its port to the server adapter.
    ERRATA_POSTGRES_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    ERRATA_POSTGRES_POOL_SIZE: integer(1, 1000).default(10),
    ERRATA_CLICKHOUSE_URL: z.url({ protocol: /^https?$/ }).optional(),
    ERRATA_CLICKHOUSE_DATABASE: z.string().regex(CLICKHOUSE_DATABASE.pattern, CLICKHOUSE_DATABASE.message).default('errata'),
    ERRATA_CLICKHOUSE_USERNAME: z.string().default('default'),
    ERRATA_CLICKHOUSE_PASSWORD: z.string().default(''),
    ERRATA_CLICKHOUSE_BATCH_ROWS: integer(1, 1_000_000).default(5000),
    ERRATA_CLICKHOUSE_BATCH_WAIT_MS: integer(0, 60_000).default(100),
    ERRATA_CLICKHOUSE_COMPRESSION: z.enum(['none', 'gzip']).default('none'),
    ERRATA_KAFKA_BROKERS: z.string().regex(KAFKA_BROKER_LIST.pattern, KAFKA_BROKER_LIST.message).optional(),
    ERRATA_KAFKA_TOPIC_PREFIX: z.string().regex(KAFKA_TOPIC_PREFIX.pattern, KAFKA_TOPIC_PREFIX.message).default(''),
    ERRATA_KAFKA_PARTITIONS: integer(1, 10_000).default(8),
    ERRATA_KAFKA_REPLICATION_FACTOR: integer(-1, 100).default(-1),
    ERRATA_KAFKA_CLIENT_ID: z.string().min(1).default('errata'),
    ERRATA_KAFKA_PRODUCE_TIMEOUT_MS: integer(100, 120_000).default(5000),
    ERRATA_S3_BUCKET: z.string().regex(S3_BUCKET.pattern, S3_BUCKET.message).optional(),
    ERRATA_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
    ERRATA_S3_REGION: z.string().min(1).default('us-east-1'),
    ERRATA_S3_FORCE_PATH_STYLE: z.enum(['true', 'false', '1', '0']).default('false'),
    ERRATA_S3_ACCESS_KEY_ID: z.string().optional(),
    ERRATA_S3_SECRET_ACCESS_KEY: z.string().optional(),
    ERRATA_S3_PREFIX: z
      .string()
      .regex(/^([A-Za-z0-9._-]+\/)*$/, 'empty, or path segments each ending in "/"')
      .default(''),
  })
  .superRefine((env, ctx) => {
    checkOidc(env, ctx);
    if ((env.ERRATA_S3_ACCESS_KEY_ID === undefined) !== (env.ERRATA_S3_SECRET_ACCESS_KEY === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.ERRATA_S3_ACCESS_KEY_ID === undefined ? 'ERRATA_S3_ACCESS_KEY_ID' : 'ERRATA_S3_SECRET_ACCESS_KEY'],
        message:
          'set both ERRATA_S3_ACCESS_KEY_ID and ERRATA_S3_SECRET_ACCESS_KEY, or neither (for the default credential chain)',
      });
    }
  });

/** ERRATA_OIDC_*: all of the four or none; the mapping parses; the issuer is https but on loopback. */
function checkOidc(env: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const required = ['ERRATA_OIDC_ISSUER', 'ERRATA_OIDC_CLIENT_ID', 'ERRATA_OIDC_CLIENT_SECRET', 'ERRATA_OIDC_ROLES'];
  const missing = required.filter((name) => env[name] === undefined || env[name] === '');
  if (missing.length > 0 && missing.length < required.length) {
    for (const name of missing) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `missing: single sign-on needs ${required.join(', ')} together (${required
          .filter((n) => !missing.includes(n))
          .join(', ')} set); set it, or unset the others to sign in with passwords only`,
      });
    }
  }
  if (typeof env.ERRATA_OIDC_ROLES === 'string' && env.ERRATA_OIDC_ROLES !== '') {
    try {
      parseRoleMapping(env.ERRATA_OIDC_ROLES);
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: ['ERRATA_OIDC_ROLES'], message: (error as Error).message });
    }
  }
  if (typeof env.ERRATA_OIDC_ISSUER === 'string') {
    const issuer = new URL(env.ERRATA_OIDC_ISSUER);
    if (issuer.protocol === 'http:' && !isLoopbackHost(issuer.hostname)) {
      ctx.addIssue({
        code: 'custom',
        path: ['ERRATA_OIDC_ISSUER'],
        message: 'use the https:// address of the provider (plain http is allowed only for a provider on this machine)',
      });
    }
  }
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claim whose values map to roles (ERRATA_OIDC_ROLE_CLAIM, default groups). */
  roleClaim: string;
  roles: RoleMapping;
  scopes: string;
  /** ERRATA_OIDC_CREATE_USERS: an unknown person with a mapped role gets an account. */
  createUsers: boolean;
  /** ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL: an email without email_verified may pick an existing account. */
  trustUnverifiedEmail: boolean;
  /** Shown on the button: "Sign in with <name>". */
  name: string;
  /** Plain http is allowed for a provider on loopback only (a test's or a local one). */
  allowHttp: boolean;
}

export interface Config {
  host: string;
  port: number;
  /** Public base URL without a trailing slash: DSNs and links are built from it. */
  baseUrl: string;
  dataDir: string;
  organization: string;
  /** `errata operator`: the namespace of its leader lease (its own). */
  operatorNamespace: string;
  logLevel: z.infer<typeof schema>['ERRATA_LOG_LEVEL'];
  limits: {
    maxEventBytes: number;
    maxLogItemBytes: number;
    maxRequestBytes: number;
    maxEnvelopeBytes: number;
    maxEnvelopeItems: number;
    maxCompressionRatio: number;
    ingestMemoryBytes: number;
  };
  rateLimits: { eventsPerMinute: number; logsPerMinute: number };
  /** JSON-RPC messages to /mcp per agent token per minute (per mcp process), each message of a batch counted. */
  agentCallsPerMinute: number;
  /** Requests to the REST API (/api/v1) per agent token per minute (per mcp process). */
  apiCallsPerMinute: number;
  /**
   * Reverse proxies in front of the dashboard that append X-Forwarded-For (ERRATA_TRUSTED_PROXIES):
   * a person's address (the sign-in throttle, their sessions) is that header's entry this many
   * from its end. 0: the connection's address.
   */
  trustedProxies: number;
  queueMaxBacklogBytes: number;
  /** V8's heap growing percent: undefined for automatic (heap-growth.ts; the standalone server keeps V8's own), 0 for V8's own. */
  heapGrowingPercent: number | undefined;
  /** The nice value `errata serve dispatcher` lowers its threads to (cpu-priority.ts); 0 leaves them as started. */
  dispatcherNice: number;
  /** Source map uploads: bundle assemblies at once per ingest process, stored chunk bytes per project. */
  uploads: { maxAssemblies: number; chunkBytesPerProject: number };
  shutdownTimeoutSeconds: number;
  /** The listener's own limits, the same for every role. */
  http: HttpServerLimits;
  eventRetentionDays: number;
  /** Seals channel signing secrets; standalone falls back to a key file in the data directory. */
  secretsKey?: Buffer;
  webhooks: {
    /** Hosts that may resolve to private, loopback or link-local addresses (lowercase). */
    allowHosts: string[];
    /** Extra CA certificates (PEM) trusted for receivers, besides the system's. */
    caFile?: string;
    retryBaseMs: number;
    /** Alerts per channel per hour; the rest are held back for an overflow summary. */
    channelLimitPerHour: number;
  };
  /** The distributed adapters' settings; a section is present when its server is configured. */
  postgres?: { url: string; poolSize: number };
  clickhouse?: {
    url: string;
    database: string;
    username: string;
    password: string;
    batchRows: number;
    batchWaitMs: number;
    compression: 'none' | 'gzip';
  };
  kafka?: {
    brokers: string[];
    topicPrefix: string;
    partitions: number;
    replicationFactor: number;
    clientId: string;
    produceTimeoutMs: number;
  };
  /** OpenID Connect sign-in; absent when ERRATA_OIDC_ISSUER is not set. */
  oidc?: OidcConfig;
  s3?: {
    bucket: string;
    endpoint?: string;
    region: string;
    forcePathStyle: boolean;
    accessKeyId?: string;
    secretAccessKey?: string;
    prefix: string;
  };
}

export class ConfigError extends Error {}

const SECRET_VARIABLES = new Set([
  'ERRATA_SECRETS_KEY',
  'ERRATA_CLICKHOUSE_PASSWORD',
  'ERRATA_S3_ACCESS_KEY_ID',
  'ERRATA_S3_SECRET_ACCESS_KEY',
  'ERRATA_OIDC_CLIENT_SECRET',
]);

/** `scheme://user:password@host` becomes `scheme://***@host`, wherever it appears in the value. */
function withoutCredentials(value: string | undefined): string | undefined {
  return value?.replace(/([a-z][a-z0-9+.-]*:\/\/)[^@/\s]*@/gi, '$1***@');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const variable = String(issue.path[0]);
      // A secret is named, never echoed; a URL is shown without its user and password.
      const value = SECRET_VARIABLES.has(variable) ? undefined : withoutCredentials(env[variable]);
      return `  ${variable}${value === undefined ? '' : `="${value}"`}: ${issue.message}`;
    });
    throw new ConfigError(
      `invalid configuration:\n${problems.join('\n')}\nfix the variable(s) above; the README lists every setting`,
    );
  }
  const c = result.data;
  return {
    host: c.ERRATA_HOST,
    port: c.ERRATA_PORT,
    baseUrl: (c.ERRATA_BASE_URL ?? `http://localhost:${c.ERRATA_PORT}`).replace(/\/+$/, ''),
    dataDir: resolve(c.ERRATA_DATA_DIR),
    organization: c.ERRATA_ORGANIZATION,
    operatorNamespace: c.ERRATA_OPERATOR_NAMESPACE,
    logLevel: c.ERRATA_LOG_LEVEL,
    limits: {
      maxEventBytes: c.ERRATA_MAX_EVENT_BYTES,
      maxLogItemBytes: c.ERRATA_MAX_LOG_ITEM_BYTES,
      maxRequestBytes: c.ERRATA_MAX_REQUEST_BYTES,
      maxEnvelopeBytes: c.ERRATA_MAX_ENVELOPE_BYTES,
      maxEnvelopeItems: c.ERRATA_MAX_ENVELOPE_ITEMS,
      maxCompressionRatio: c.ERRATA_MAX_COMPRESSION_RATIO,
      ingestMemoryBytes: c.ERRATA_INGEST_MEMORY_BYTES,
    },
    rateLimits: { eventsPerMinute: c.ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE, logsPerMinute: c.ERRATA_RATE_LIMIT_LOGS_PER_MINUTE },
    agentCallsPerMinute: c.ERRATA_AGENT_RATE_LIMIT_PER_MINUTE,
    apiCallsPerMinute: c.ERRATA_API_RATE_LIMIT_PER_MINUTE,
    trustedProxies: c.ERRATA_TRUSTED_PROXIES,
    queueMaxBacklogBytes: c.ERRATA_QUEUE_MAX_BACKLOG_BYTES,
    heapGrowingPercent: c.ERRATA_HEAP_GROWING_PERCENT,
    dispatcherNice: c.ERRATA_DISPATCHER_NICE,
    uploads: { maxAssemblies: c.ERRATA_UPLOAD_MAX_ASSEMBLIES, chunkBytesPerProject: c.ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT },
    shutdownTimeoutSeconds: c.ERRATA_SHUTDOWN_TIMEOUT_SECONDS,
    http: {
      headersTimeoutMs: c.ERRATA_HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: c.ERRATA_HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      bodyTimeoutMs: c.ERRATA_HTTP_BODY_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: c.ERRATA_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
      maxHeaderBytes: c.ERRATA_HTTP_MAX_HEADER_BYTES,
      maxConnections: c.ERRATA_HTTP_MAX_CONNECTIONS,
      maxConnectionsPerClient: c.ERRATA_HTTP_MAX_CONNECTIONS_PER_CLIENT,
    },
    eventRetentionDays: c.ERRATA_EVENT_RETENTION_DAYS,
    secretsKey: c.ERRATA_SECRETS_KEY ? Buffer.from(c.ERRATA_SECRETS_KEY, 'hex') : undefined,
    webhooks: {
      allowHosts: c.ERRATA_WEBHOOK_ALLOW_HOSTS.split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
      caFile: c.ERRATA_WEBHOOK_CA_FILE,
      retryBaseMs: c.ERRATA_WEBHOOK_RETRY_BASE_MS,
      channelLimitPerHour: c.ERRATA_ALERT_CHANNEL_LIMIT_PER_HOUR,
    },
    postgres: c.ERRATA_POSTGRES_URL ? { url: c.ERRATA_POSTGRES_URL, poolSize: c.ERRATA_POSTGRES_POOL_SIZE } : undefined,
    clickhouse: c.ERRATA_CLICKHOUSE_URL
      ? {
          url: c.ERRATA_CLICKHOUSE_URL,
          database: c.ERRATA_CLICKHOUSE_DATABASE,
          username: c.ERRATA_CLICKHOUSE_USERNAME,
          password: c.ERRATA_CLICKHOUSE_PASSWORD,
          batchRows: c.ERRATA_CLICKHOUSE_BATCH_ROWS,
          batchWaitMs: c.ERRATA_CLICKHOUSE_BATCH_WAIT_MS,
          compression: c.ERRATA_CLICKHOUSE_COMPRESSION,
        }
      : undefined,
    kafka: c.ERRATA_KAFKA_BROKERS
      ? {
          brokers: c.ERRATA_KAFKA_BROKERS.split(','),
          topicPrefix: c.ERRATA_KAFKA_TOPIC_PREFIX,
          partitions: c.ERRATA_KAFKA_PARTITIONS,
          replicationFactor: c.ERRATA_KAFKA_REPLICATION_FACTOR,
          clientId: c.ERRATA_KAFKA_CLIENT_ID,
          produceTimeoutMs: c.ERRATA_KAFKA_PRODUCE_TIMEOUT_MS,
        }
      : undefined,
    oidc:
      c.ERRATA_OIDC_ISSUER && c.ERRATA_OIDC_CLIENT_ID && c.ERRATA_OIDC_CLIENT_SECRET && c.ERRATA_OIDC_ROLES
        ? {
            issuer: c.ERRATA_OIDC_ISSUER,
            clientId: c.ERRATA_OIDC_CLIENT_ID,
            clientSecret: c.ERRATA_OIDC_CLIENT_SECRET,
            roleClaim: c.ERRATA_OIDC_ROLE_CLAIM,
            roles: parseRoleMapping(c.ERRATA_OIDC_ROLES),
            scopes: c.ERRATA_OIDC_SCOPES.trim().split(/\s+/).join(' '),
            createUsers: c.ERRATA_OIDC_CREATE_USERS === 'true' || c.ERRATA_OIDC_CREATE_USERS === '1',
            trustUnverifiedEmail: c.ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL === 'true' || c.ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL === '1',
            name: c.ERRATA_OIDC_NAME,
            allowHttp: new URL(c.ERRATA_OIDC_ISSUER).protocol === 'http:',
          }
        : undefined,
    s3: c.ERRATA_S3_BUCKET
      ? {
          bucket: c.ERRATA_S3_BUCKET,
          endpoint: c.ERRATA_S3_ENDPOINT,
          region: c.ERRATA_S3_REGION,
          forcePathStyle: c.ERRATA_S3_FORCE_PATH_STYLE === 'true' || c.ERRATA_S3_FORCE_PATH_STYLE === '1',
          accessKeyId: c.ERRATA_S3_ACCESS_KEY_ID,
          secretAccessKey: c.ERRATA_S3_SECRET_ACCESS_KEY,
          prefix: c.ERRATA_S3_PREFIX,
        }
      : undefined,
  };
}
