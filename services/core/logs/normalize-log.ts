// Dispatcher step for `log` items: the container payload `{"items": [...]}` becomes stored
// LogRecords. Every SDK variant is accepted: timestamps as floats (JS, Python) or RFC 3339
// (Go); severity_number top-level (JS, Go) or as the `sentry.severity_number` attribute
// (Python); integers that arrive as strings. A record without a body is dropped and counted.
import {
  boundedJson,
  cutText,
  isRecord,
  lenientString,
  ownValue,
  setOwn,
  storableText,
  withDepthMarkerBudget,
  type JsonRecord,
} from '../event/coerce.ts';
import { clockCorrection } from '../event/clock-drift.ts';
import { implausibleTimestamp, parseTimestamp } from '../event/timestamp.ts';
import { isLogLevel, levelForSeverity, SEVERITY_NUMBER, type LogAttribute, type LogLevel, type LogRecord } from './log-record.ts';

const MAX_BODY = 65_536;
const MAX_ATTRIBUTES = 200;
const MAX_ATTRIBUTE_TEXT = 8192;

interface LogContainerContext {
  containerId: string;
  projectId: number;
  receivedAt: number;
  /** Records declared by the item's `item_count` (what ingest rate-limited); more are dropped. */
  maxRecords?: number;
  /** The envelope header's `sent_at`, as sent: a drifted client clock is corrected as for events. */
  sentAt?: unknown;
}

interface NormalizedLogs {
  records: LogRecord[];
  /**
   * Declared records that were not stored: unreadable ones, and any the container declared but
   * did not hold. With `records`, these add up to the declared count ingest accepted.
   */
  invalid: number;
  /** Records beyond the declared count: never accepted, counted apart. */
  undeclared: number;
}

export function normalizeLogContainer(payload: unknown, context: LogContainerContext): NormalizedLogs {
  return withDepthMarkerBudget(() => normalizeRecords(payload, context));
}

function normalizeRecords(payload: unknown, context: LogContainerContext): NormalizedLogs {
  const items = isRecord(payload) && Array.isArray(payload.items) ? payload.items : undefined;
  if (!items) return { records: [], invalid: context.maxRecords ?? 1, undeclared: 0 };
  const records: LogRecord[] = [];
  const drift = clockCorrection(context.sentAt, context.receivedAt)?.drift ?? 0;
  const declared = context.maxRecords ?? items.length;
  const undeclared = Math.max(0, items.length - declared);
  let invalid = Math.max(0, declared - items.length);
  items.slice(0, declared).forEach((item, index) => {
    // Each record on its own: one that cannot be read drops only itself, counted.
    let record: LogRecord | undefined;
    try {
      record = normalizeLogItem(item, index, drift, context);
    } catch {
      record = undefined;
    }
    if (record) records.push(record);
    else invalid += 1;
  });
  return { records, invalid, undeclared };
}

function normalizeLogItem(raw: unknown, index: number, drift: number, context: LogContainerContext): LogRecord | undefined {
  if (!isRecord(raw)) return undefined;
  const body = lenientString(raw.body);
  if (body === undefined) return undefined;
  const attributes = normalizeAttributes(raw.attributes);
  const severity = severityNumber(raw.severity_number) ?? severityNumber(attributes['sentry.severity_number']?.value);
  const level = logLevel(raw.level, severity);
  return {
    // The index zero-padded: records of one time are ordered by id, as text, and c:10 came before c:2.
    id: `${context.containerId}:${String(index).padStart(6, '0')}`,
    projectId: context.projectId,
    timestamp: logTimestamp(raw.timestamp, drift, context.receivedAt),
    observedAt: context.receivedAt,
    traceId: hexId(raw.trace_id, 32),
    spanId: hexId(raw.span_id, 16),
    level,
    severityNumber: severity ?? SEVERITY_NUMBER[level],
    body: cutText(body, MAX_BODY),
    attributes,
    release: textAttribute(attributes['sentry.release']),
    environment: textAttribute(attributes['sentry.environment']),
  };
}

/** The record's own time, corrected for clock drift, when plausible (as for events), else when it was received. */
function logTimestamp(value: unknown, drift: number, receivedAt: number): number {
  const sent = parseTimestamp(value);
  const parsed = sent === undefined ? undefined : sent + drift;
  return parsed === undefined || implausibleTimestamp(parsed, receivedAt) ? receivedAt : parsed;
}

const LEVEL_ALIASES: Record<string, LogLevel> = { warning: 'warn', critical: 'fatal', err: 'error', information: 'info' };

function logLevel(value: unknown, severity: number | undefined): LogLevel {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (isLogLevel(text)) return text;
  const alias = text ? ownValue(LEVEL_ALIASES, text) : undefined;
  if (alias) return alias;
  return severity !== undefined ? levelForSeverity(severity) : 'info';
}

function severityNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 24 ? n : undefined;
}

function hexId(value: unknown, length: number): string | null {
  if (typeof value !== 'string') return null;
  const id = value.toLowerCase().replace(/-/g, '');
  return id.length === length && /^[0-9a-f]+$/.test(id) && !/^0+$/.test(id) ? id : null;
}

function normalizeAttributes(raw: unknown): Record<string, LogAttribute> {
  const out: Record<string, LogAttribute> = {};
  if (!isRecord(raw)) return out;
  for (const [key, value] of Object.entries(raw).slice(0, MAX_ATTRIBUTES)) {
    if (key.length > 256) continue;
    const attribute = normalizeAttribute(value);
    if (attribute) setOwn(out, storableText(key), attribute);
  }
  return out;
}

function normalizeAttribute(raw: unknown): LogAttribute | undefined {
  // Either the typed form `{value, type}` or, leniently, a bare value whose type we infer.
  const typed = isRecord(raw) && 'value' in raw ? (raw as JsonRecord) : undefined;
  const value = typed ? typed.value : raw;
  // A type is a short lowercase word (string, integer, double, boolean, array); anything else is
  // not one, and must not reach a store as text (a lone surrogate made a whole batch unstorable).
  const declared = typed && typeof typed.type === 'string' && /^[a-z_]{1,32}$/.test(typed.type) ? typed.type : undefined;
  if (value === null || value === undefined) return undefined;
  if (declared === 'integer' || declared === 'double') {
    return declaredNumber(value, declared) ?? { type: 'string', value: storableText(cutText(String(value), MAX_ATTRIBUTE_TEXT)) };
  }
  // Sent as text, kept as text: "5" stays a string when declared one, and a 5 declared a string too.
  if (declared === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
    return { type: 'string', value: String(value) };
  }
  if (declared === 'boolean') {
    if (typeof value === 'boolean') return { type: 'boolean', value };
    if (value === 'true' || value === 'false') return { type: 'boolean', value: value === 'true' };
  }
  if (typeof value === 'string') return { type: 'string', value: storableText(cutText(value, MAX_ATTRIBUTE_TEXT)) };
  if (typeof value === 'boolean') return { type: 'boolean', value };
  if (typeof value === 'number' && Number.isFinite(value)) {
    return { type: Number.isInteger(value) ? 'integer' : 'double', value };
  }
  // Arrays (Python sends `type: "array"`) and anything else structured: kept, bounded. Bounded
  // before it is measured: the client's value may nest deeper than JSON.stringify can go.
  const bounded = boundedJson(value, 3, 1024, 100);
  const text = JSON.stringify(bounded);
  return {
    type: declared ?? (Array.isArray(value) ? 'array' : 'string'),
    value: text.length > MAX_ATTRIBUTE_TEXT ? storableText(cutText(text, MAX_ATTRIBUTE_TEXT)) : bounded,
  };
}

/** Decimal digits, as Python sends an integer: not `0x10`, `1e3` or ` 7 `, which Number() reads too. */
const INTEGER_TEXT = /^-?\d{1,20}$/;
const DOUBLE_TEXT = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * A value declared a number, as that number when it is one. An integer past 2^53 is kept as its
 * text (a number would change it), and a fraction declared an integer is a double.
 */
function declaredNumber(value: unknown, declared: 'integer' | 'double'): LogAttribute | undefined {
  const pattern = declared === 'integer' ? INTEGER_TEXT : DOUBLE_TEXT;
  const n = typeof value === 'number' ? value : typeof value === 'string' && pattern.test(value) ? Number(value) : undefined;
  if (n === undefined || !Number.isFinite(n)) return undefined;
  if (declared === 'double' || !Number.isInteger(n)) return { type: 'double', value: n };
  return Number.isSafeInteger(n) ? { type: 'integer', value: n } : undefined;
}

function textAttribute(attribute: LogAttribute | undefined): string | null {
  return attribute && typeof attribute.value === 'string' && attribute.value !== '' ? attribute.value.slice(0, 200) : null;
}
