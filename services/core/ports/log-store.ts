// LogStore port: structured log records. PGlite standalone, ClickHouse distributed. Writes
// are idempotent by record id (the queued container's id plus the record's index).
import type { LogLevel } from '../logs/log-record.ts';
import type { LogRecord } from '../logs/log-record.ts';
import type { Page } from './page.ts';

export interface LogQuery {
  projectId: number;
  /**
   * The records of these projects too, in one search (the trace view reads every project of an
   * organization: before, one search per project, hundreds for a large organization per page).
   */
  moreProjectIds?: readonly number[];
  levels?: LogLevel[];
  /** Case-insensitive substring of the body. */
  text?: string;
  traceId?: string;
  /** Records sent with this environment (`sentry.environment`). */
  environment?: string;
  /** Each attribute must equal the given text (numbers and booleans compared as text). */
  attributes?: Record<string, string>;
  /** Each attribute's value must read as a number (an integer or double, or text that reads as one) and compare so. */
  comparisons?: AttributeComparison[];
  /** Float seconds since the epoch, inclusive. */
  since?: number;
  until?: number;
  limit: number;
  /** Default newest first; ties by record id in the same direction. A cursor continues only the order it came from. */
  order?: LogOrder;
  cursor?: string;
}

export const COMPARISON_OPERATORS = ['>', '<', '>=', '<='] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

/** `duration_ms:>250`: the attribute's number against a number. */
export interface AttributeComparison {
  key: string;
  operator: ComparisonOperator;
  value: number;
}

/** The filters of a search, without its page (the volume chart counts what a search matches). */
export type LogFilter = Omit<LogQuery, 'limit' | 'order' | 'cursor'>;

/** The records of one level in one bucket of a volume histogram. */
export interface LogVolume {
  /** The bucket's start, float seconds: since + n * bucketSeconds. */
  start: number;
  level: LogLevel;
  count: number;
}

/** A volume histogram's counts, and how much of the window they cover. */
export interface LogVolumeCounts {
  counts: LogVolume[];
  /**
   * Set when only the records from this time (float seconds) to the window's end were counted:
   * a store may bound the rows a search by text or attributes reads for its histogram.
   */
  countedSince?: number;
}

/** The records the SQL store (standalone) reads at most for one page of a search by text or attributes. */
export const SEARCH_SCAN_RECORDS = 50_000;

/** A page of a search; it may end short of its limit with a cursor to read on. */
export interface LogPage extends Page<LogRecord> {
  /**
   * Set when the store read as many records as it reads for one page and stopped before finding
   * more than `limit` matches: the time (float seconds) of the last record it read. `nextCursor` continues
   * from there. A store may bound the records a search by text or attributes reads per page, so
   * that one search cannot hold the database for the whole of retention.
   */
  searchedTo?: number;
}

export const LOG_ORDERS = ['newest', 'oldest'] as const;
export type LogOrder = (typeof LOG_ORDERS)[number];

export interface LogStore {
  insertLogs(records: LogRecord[]): Promise<void>;
  searchLogs(query: LogQuery): Promise<LogPage>;
  /**
   * How many records match the filter per level in each bucket of `bucketSeconds` from `since`
   * up to `until` (both required here); buckets and levels without records left out, oldest first.
   */
  logVolume(filter: LogFilter & { since: number; until: number }, bucketSeconds: number): Promise<LogVolumeCounts>;
  /** Deletes records older than the cutoff (float seconds); returns how many went. */
  deleteLogsBefore(cutoff: number): Promise<number>;
  /** Deletes every record of the project (it was deleted); may take a while, and may be repeated. */
  deleteLogsOfProject(projectId: number): Promise<void>;
  /** Resolves when the store answers; used by /healthz. */
  ping(): Promise<void>;
}
