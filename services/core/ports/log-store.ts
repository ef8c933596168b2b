// LogStore port: structured log records. PGlite standalone, ClickHouse distributed. Writes
// are idempotent by record id (the queued container's id plus the record's index).
import type { LogLevel } from '../logs/log-record.ts';
import type { LogRecord } from '../logs/log-record.ts';
import type { Page } from './page.ts';

export interface LogQuery {
  projectId: number;
  levels?: LogLevel[];
  /** Case-insensitive substring of the body. */
  text?: string;
  traceId?: string;
  /** Records sent with this environment (`sentry.environment`). */
  environment?: string;
  /** Each attribute must equal the given text (numbers and booleans compared as text). */
  attributes?: Record<string, string>;
  /** Float seconds since the epoch, inclusive. */
  since?: number;
  until?: number;
  limit: number;
  /** Default newest first; ties by record id in the same direction. A cursor continues only the order it came from. */
  order?: LogOrder;
  cursor?: string;
}

export const LOG_ORDERS = ['newest', 'oldest'] as const;
export type LogOrder = (typeof LOG_ORDERS)[number];

export interface LogStore {
  insertLogs(records: LogRecord[]): Promise<void>;
  searchLogs(query: LogQuery): Promise<Page<LogRecord>>;
  /** Deletes records older than the cutoff (float seconds); returns how many went. */
  deleteLogsBefore(cutoff: number): Promise<number>;
  /** Resolves when the store answers; used by /healthz. */
  ping(): Promise<void>;
}
