// How search_logs and the Logs page show a record's attributes: `key: value`, without the
// `{type, value}` wrapper the SDKs send (the value keeps its JSON type), and without the SDK's
// bookkeeping, which costs an agent tokens and a person attention and tells neither anything:
// the SDK's name and version, the per-record sequence number, and what the record already
// carries as its own field (release, environment, level, trace id).
import { setOwn } from '../event/coerce.ts';
import type { LogRecord } from './log-record.ts';

/** Attributes that repeat a field of the record itself. */
const TOP_LEVEL = new Set([
  'sentry.release',
  'sentry.environment',
  'sentry.severity_number',
  'sentry.severity_text',
  'sentry.trace_id',
  'sentry.trace.trace_id',
]);

function isBookkeeping(key: string): boolean {
  return key.startsWith('sentry.sdk.') || key === 'sentry.timestamp.sequence' || TOP_LEVEL.has(key);
}

export function logAttributes(record: Pick<LogRecord, 'attributes' | 'spanId'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, attribute] of Object.entries(record.attributes)) {
    if (isBookkeeping(key)) continue;
    // The parent span id the JS SDK sends is the record's own spanId when it has one.
    if (key === 'sentry.trace.parent_span_id' && attribute.value === record.spanId) continue;
    setOwn(out, key, attribute.value);
  }
  return out;
}
