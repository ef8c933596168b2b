// Why an item was not stored. Every item ingest or the dispatcher does not keep is counted
// under one of these reasons (errata_outcomes_total{reason, category, stage}); nothing drops
// silently.
// Ingest attaches the outcomes of a refusal to the error it throws (ErrataError.outcomes) and
// records them once, where the request ends (ingest/sdk-endpoints.ts); the dispatcher records a
// batch's once its writes went through (OutcomeTally). Not counted: requests refused for their
// credentials (401, 403 for an unknown or disabled key), 405, and 503s, which SDKs send again. A
// body refused before its key was checked (413 for its size, 400 for an encoding it cannot be
// read in) is counted under its reason.

/** Each reason, with the stage that counts it. */
export const OUTCOME_REASONS = {
  rate_limited: "ingest: over the project's events or log records per minute (429, or 200 for the rest)",
  too_large: 'ingest: a body, an envelope, an item or an item count over its limit (413)',
  invalid_envelope:
    'ingest: broken framing, headers nested too deep, two events in one envelope, a header dsn or origin that is ' +
    'malformed or disagrees with the request (400); ' +
    'dispatcher: a queue record it cannot read',
  project_id: "ingest: a request whose URL or header dsn names a project id that is not its key's project (403)",
  invalid_payload: 'ingest: a body that cannot be read: an unsupported or lying Content-Encoding, or one cut short (400)',
  invalid_json: 'ingest: a /store/ body that is not one JSON object (400); dispatcher: an item payload that is not JSON',
  invalid_log: 'dispatcher: a log record it cannot read, or one its container declared but did not hold',
  unknown_item_type: 'ingest: an envelope item of a type it does not know (acknowledged with 200)',
  item_not_stored: 'ingest: an item of a type Errata does not store, such as transactions and sessions (200)',
  internal_item_type: 'ingest: an item type only Relay sends to Relay (200)',
  project_missing: "dispatcher: the item's project was deleted after ingest accepted it",
  processing_failed: 'dispatcher: an item that fails on its own while the stores work, passed over after retries',
  duplicate: 'dispatcher: a second event with the same id in one batch; the first is the one stored',
  issue_deleted: 'dispatcher: an event delivered again (a batch retried, or read again) after its issue was deleted',
  undeclared_record: 'dispatcher: log records beyond the count their container declared, which ingest never accepted',
} as const;
export type OutcomeReason = keyof typeof OUTCOME_REASONS;

/**
 * Where an item was not stored: ingest refused it (or acknowledged it without queueing it), or
 * the dispatcher dropped it after ingest accepted it. invalid_json and invalid_envelope happen
 * at both, so only the stage tells what was lost after an SDK heard 200.
 */
export type OutcomeStage = 'ingest' | 'dispatcher';

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

/** Items not stored for one reason. */
export interface Outcome {
  reason: OutcomeReason;
  category: DataCategory;
  quantity: number;
}

export function outcome(reason: OutcomeReason, category: DataCategory = 'unknown', quantity = 1): Outcome {
  return { reason, category, quantity };
}

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
