// SDK client reports (`client_report` items): what an SDK dropped itself before sending, and why,
// as `{timestamp, discarded_events: [{reason, category, quantity}]}` (Sentry's developer docs,
// "Client Reports"). Relay turns them into outcomes; Errata counts them apart, by reason and
// category (errata_sdk_discarded_total), so the events lost on the client's side (a full SDK
// queue, a backoff after our 429s, a before_send that drops) show beside what ingest refused.
// Reasons and categories are the SDKs' own words: any other is counted as `other`, so a client
// cannot add labels.
import { isRecord } from '../event/coerce.ts';

/** The reasons SDKs give (develop.sentry.dev, sdk/telemetry/client-reports). */
const REASONS = new Set([
  'queue_overflow',
  'cache_overflow',
  'buffer_overflow',
  'ratelimit_backoff',
  'network_error',
  'sample_rate',
  'before_send',
  'event_processor',
  'send_error',
  'internal_sdk_error',
  'insufficient_data',
  'backpressure',
]);

/** The data categories they count in (Relay's DataCategory names). */
const CATEGORIES = new Set([
  'default',
  'error',
  'transaction',
  'security',
  'attachment',
  'session',
  'profile',
  'profile_chunk',
  'replay',
  'span',
  'log_item',
  'log_byte',
  'monitor',
  'feedback',
  'user_report_v2',
  'internal',
]);

/** As Relay's max_client_reports_size: a larger report is not read. */
export const MAX_CLIENT_REPORT_BYTES = 100 * 1024;
/** Entries read from one report; SDKs send one per reason and category. */
const MAX_ENTRIES = 100;
/** The most one entry counts: a report claiming more is not believed beyond it. */
const MAX_QUANTITY = 1_000_000;

export interface DiscardedEvents {
  reason: string;
  category: string;
  quantity: number;
}

/** The report's discarded events, bounded; none when it cannot be read. */
export function discardedEvents(payload: Buffer): DiscardedEvents[] {
  if (payload.length > MAX_CLIENT_REPORT_BYTES) return [];
  let report: unknown;
  try {
    report = JSON.parse(payload.toString('utf8'));
  } catch {
    return [];
  }
  const entries = isRecord(report) && Array.isArray(report.discarded_events) ? report.discarded_events : [];
  return entries.slice(0, MAX_ENTRIES).flatMap((entry: unknown) => {
    if (!isRecord(entry)) return [];
    const { reason, category, quantity } = entry;
    if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity <= 0) return [];
    return [
      {
        reason: typeof reason === 'string' && REASONS.has(reason) ? reason : 'other',
        category: typeof category === 'string' && CATEGORIES.has(category) ? category : 'other',
        quantity: Math.min(quantity, MAX_QUANTITY),
      },
    ];
  });
}
