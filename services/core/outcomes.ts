// Why an item was not stored. Every item ingest or the dispatcher does not keep is counted
// under one of these reasons (errata_outcomes_total{reason, category}); nothing drops silently.

export const OUTCOME_REASONS = [
  'rate_limited',
  'too_large',
  'invalid_envelope',
  'invalid_json',
  'invalid_log',
  'unknown_item_type',
  'item_not_stored',
  'internal_item_type',
  'project_missing',
  'processing_failed',
  /** A second event with the same id in one dispatcher batch: the first is the one stored. */
  'duplicate',
  /** Log records beyond the count their container declared (item_count), which ingest never accepted. */
  'undeclared_record',
] as const;
export type OutcomeReason = (typeof OUTCOME_REASONS)[number];

/** Data categories as SDKs and X-Sentry-Rate-Limits name them. */
export type DataCategory =
  | 'error'
  | 'default'
  | 'transaction'
  | 'attachment'
  | 'session'
  | 'log_item'
  | 'monitor'
  | 'feedback'
  | 'user_report_v2'
  | 'profile'
  | 'replay'
  | 'span'
  | 'internal'
  | 'unknown';

export interface OutcomeRecorder {
  record(reason: OutcomeReason, category: DataCategory, quantity?: number): void;
}

/**
 * A batch's outcomes, held until its writes went through: a batch that fails and runs again,
 * whole or record by record, then counts each of its items once.
 */
export class OutcomeTally implements OutcomeRecorder {
  private readonly entries: Array<[OutcomeReason, DataCategory, number]> = [];

  record(reason: OutcomeReason, category: DataCategory, quantity = 1): void {
    if (quantity > 0) this.entries.push([reason, category, quantity]);
  }

  recordTo(recorder: OutcomeRecorder): void {
    for (const [reason, category, quantity] of this.entries) recorder.record(reason, category, quantity);
    this.entries.length = 0;
  }
}
