// What ingest does with each envelope item type. Events and logs go through the pipeline and
// are stored; the rest is acknowledged (SDKs must not retry or complain) and counted as an
// outcome saying why it was not stored (a client report's contents are counted apart too:
// client-report.ts). `integration` is Relay-internal and refused as such.
import { ownValue } from '../event/coerce.ts';
import type { DataCategory, OutcomeReason } from '../outcomes.ts';

type ItemRoute =
  | { kind: 'event'; category: DataCategory }
  | { kind: 'log'; category: DataCategory }
  | { kind: 'not_stored'; category: DataCategory; reason: OutcomeReason };

const NOT_STORED: Record<string, DataCategory> = {
  transaction: 'transaction',
  attachment: 'attachment',
  client_report: 'internal',
  session: 'session',
  sessions: 'session',
  check_in: 'monitor',
  user_report: 'user_report_v2',
  feedback: 'feedback',
  profile: 'profile',
  profile_chunk: 'profile',
  replay_event: 'replay',
  replay_recording: 'replay',
  replay_video: 'replay',
  span: 'span',
  otel_span: 'span',
  statsd: 'internal',
  metric_buckets: 'internal',
  trace_metric: 'internal',
  form_data: 'attachment',
  security: 'default',
  raw_security: 'default',
  nel: 'default',
  unreal_report: 'error',
};

export function routeItem(type: string): ItemRoute {
  if (type === 'event') return { kind: 'event', category: 'error' };
  if (type === 'log') return { kind: 'log', category: 'log_item' };
  if (type === 'integration') return { kind: 'not_stored', category: 'internal', reason: 'internal_item_type' };
  const category = ownValue(NOT_STORED, type);
  if (category) return { kind: 'not_stored', category, reason: 'item_not_stored' };
  return { kind: 'not_stored', category: 'unknown', reason: 'unknown_item_type' };
}
