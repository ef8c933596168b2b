// A structured log record as stored and searched. Attributes keep their SDK-declared type
// (`{type, value}`) so numbers stay numbers and search can compare them as text.

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** OpenTelemetry severity numbers at the start of each level's range. */
export const SEVERITY_NUMBER: Record<LogLevel, number> = { trace: 1, debug: 5, info: 9, warn: 13, error: 17, fatal: 21 };

export interface LogAttribute {
  type: 'string' | 'boolean' | 'integer' | 'double' | 'array' | string;
  value: unknown;
}

export interface LogRecord {
  /** `<queued container id>:<index>`: stable across redelivery, so writes are idempotent. */
  id: string;
  projectId: number;
  /** Float seconds since the epoch. */
  timestamp: number;
  observedAt: number;
  traceId: string | null;
  spanId: string | null;
  level: LogLevel;
  severityNumber: number;
  body: string;
  attributes: Record<string, LogAttribute>;
  release: string | null;
  environment: string | null;
}

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** The level whose severity range holds this OpenTelemetry severity number. */
export function levelForSeverity(severity: number): LogLevel {
  if (severity >= 21) return 'fatal';
  if (severity >= 17) return 'error';
  if (severity >= 13) return 'warn';
  if (severity >= 9) return 'info';
  if (severity >= 5) return 'debug';
  return 'trace';
}
