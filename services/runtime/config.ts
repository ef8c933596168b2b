// The one place that reads process.env: a zod schema over every ERRATA_ variable, parsed once
// at start-up. A bad value stops the process with a message naming the variable and what it
// expected. The README's table of variables mirrors this file.
import { resolve } from 'node:path';
import { z } from 'zod';

const MiB = 1024 * 1024;

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);

const schema = z.object({
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
  ERRATA_INGEST_MEMORY_BYTES: integer(MiB).default(256 * MiB),
  ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE: integer(0).default(120_000),
  ERRATA_RATE_LIMIT_LOGS_PER_MINUTE: integer(0).default(600_000),
  ERRATA_QUEUE_MAX_BACKLOG_BYTES: integer(MiB).default(1024 * MiB),
  ERRATA_SHUTDOWN_TIMEOUT_SECONDS: integer(1, 3600).default(30),
  ERRATA_EVENT_RETENTION_DAYS: integer(1, 3650).default(90),
});

export interface Config {
  host: string;
  port: number;
  /** Public base URL without a trailing slash: DSNs and links are built from it. */
  baseUrl: string;
  dataDir: string;
  organization: string;
  logLevel: z.infer<typeof schema>['ERRATA_LOG_LEVEL'];
  limits: {
    maxEventBytes: number;
    maxLogItemBytes: number;
    maxRequestBytes: number;
    maxEnvelopeBytes: number;
    ingestMemoryBytes: number;
  };
  rateLimits: { eventsPerMinute: number; logsPerMinute: number };
  queueMaxBacklogBytes: number;
  shutdownTimeoutSeconds: number;
  eventRetentionDays: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const variable = String(issue.path[0]);
      const value = env[variable];
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
    logLevel: c.ERRATA_LOG_LEVEL,
    limits: {
      maxEventBytes: c.ERRATA_MAX_EVENT_BYTES,
      maxLogItemBytes: c.ERRATA_MAX_LOG_ITEM_BYTES,
      maxRequestBytes: c.ERRATA_MAX_REQUEST_BYTES,
      maxEnvelopeBytes: c.ERRATA_MAX_ENVELOPE_BYTES,
      ingestMemoryBytes: c.ERRATA_INGEST_MEMORY_BYTES,
    },
    rateLimits: { eventsPerMinute: c.ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE, logsPerMinute: c.ERRATA_RATE_LIMIT_LOGS_PER_MINUTE },
    queueMaxBacklogBytes: c.ERRATA_QUEUE_MAX_BACKLOG_BYTES,
    shutdownTimeoutSeconds: c.ERRATA_SHUTDOWN_TIMEOUT_SECONDS,
    eventRetentionDays: c.ERRATA_EVENT_RETENTION_DAYS,
  };
}
