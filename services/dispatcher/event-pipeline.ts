// The dispatcher's event pipeline, one queue batch at a time (see docs/path-of-an-event.md):
//   prepare (parse, normalize, group, serialize, encode) -> record occurrences (issues, counts; one
//   metadata transaction) -> store events -> evaluate alert rules (deliveries into the outbox).
// Everything here is idempotent by event id: a redelivered batch finds its events already
// counted, counts nothing twice, and (re)writes the same event rows.
import type { OccurrenceResult } from '../core/issues/occurrence.ts';
import { OutcomeTally, type OutcomeRecorder } from '../core/outcomes.ts';
import type { EventStore, NewEvent } from '../core/ports/event-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { BatchHandler } from '../core/ports/queue.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { groupingRulesLoader } from './grouping-rules-loader.ts';
import { prepareEvents, type PreparedBatch } from './prepare-events.ts';
import type { SourceMapSymbolicator } from './source-map-symbolicator.ts';
import type { AlertEvaluator } from './alert-evaluator.ts';
import { countByProject } from './count-by-project.ts';

interface EventPipelineDeps {
  metadata: MetadataStore;
  /** Absent where no blob store is open: frames stay as they came. */
  symbolicator?: SourceMapSymbolicator;
  /** Absent where alerts are not evaluated (no alert store). */
  alertEvaluator?: AlertEvaluator;
  events: EventStore;
  outcomes: OutcomeRecorder;
  metrics: Metrics;
  logger: Logger;
}

export function eventPipeline(deps: EventPipelineDeps): BatchHandler {
  return async (records) => {
    // This step includes serializing and encoding each payload (the embedded store deflates it),
    // which store_events timed until a batch held its payloads encoded (issue 20).
    const stop = deps.metrics.pipelineStepDuration.startTimer({ step: 'normalize_and_group' });
    const symbolicator = deps.symbolicator;
    /** Every payload encoded for this batch, so that a failure partway can let them go. */
    const encoded: string[] = [];
    let batch: PreparedBatch;
    try {
      batch = await prepareEvents(records, {
        encodePayload: (json) => {
          const payload = deps.events.encodePayload(json);
          encoded.push(payload);
          return payload;
        },
        logger: deps.logger,
        ...(symbolicator && { symbolicate: (id, event) => symbolicator.symbolicate(id, event) }),
        groupingRulesFor: groupingRulesLoader(deps.metadata, deps.logger),
      });
    } catch (error) {
      // Loading a project's grouping rules or source maps failed partway (or a later event would
      // not encode): the payloads encoded before it are let go like those of a batch whose
      // recording failed.
      await letGo(deps.events, encoded);
      throw error;
    }
    stop();
    await store(deps, batch);
    await symbolicator?.flushUsage();
  };
}

/** Counts (processed, outcomes) are recorded once everything went through: a run that fails counts nothing. */
async function store(deps: EventPipelineDeps, batch: PreparedBatch): Promise<void> {
  const outcomes = new OutcomeTally();
  for (const reason of batch.dropped) outcomes.record(reason, 'error');
  if (batch.prepared.length === 0) return outcomes.recordTo(deps.outcomes);

  const recordTimer = deps.metrics.pipelineStepDuration.startTimer({ step: 'record_occurrences' });
  let results: OccurrenceResult[];
  try {
    results = await deps.metadata.recordOccurrences(batch.prepared.map((p) => p.occurrence));
  } catch (error) {
    await letGo(
      deps.events,
      batch.prepared.map((p) => p.event.encodedPayload),
    );
    throw error;
  }
  recordTimer();

  const byEvent = new Map(results.map((r) => [`${r.projectId}:${r.eventId}`, r]));
  const rows: NewEvent[] = [];
  /** Payloads encoded for events not stored: the store lets them go. */
  const unused: string[] = [];
  const seen = new Set<string>();
  for (const { event } of batch.prepared) {
    const key = `${event.projectId}:${event.eventId}`;
    const result = byEvent.get(key);
    if (!result) {
      outcomes.record('project_missing', 'error');
      unused.push(event.encodedPayload);
      continue;
    }
    if (seen.has(key)) {
      outcomes.record('duplicate', 'error');
      unused.push(event.encodedPayload);
      continue;
    }
    if (result.issueDeleted) {
      seen.add(key);
      outcomes.record('issue_deleted', 'error');
      unused.push(event.encodedPayload);
      continue;
    }
    seen.add(key);
    rows.push({ ...event, issueId: result.issueId });
  }
  const storeTimer = deps.metrics.pipelineStepDuration.startTimer({ step: 'store_events' });
  await deps.events.insertEvents(rows, unused);
  storeTimer();
  if (deps.alertEvaluator) {
    // Redelivered events too: they carry the facts of their first delivery, and the outbox keeps
    // one delivery per key, so a batch that failed after its events were counted still alerts once.
    const alertTimer = deps.metrics.pipelineStepDuration.startTimer({ step: 'evaluate_alerts' });
    const pairs = batch.prepared.flatMap(({ occurrence, event }) => {
      const result = byEvent.get(`${event.projectId}:${event.eventId}`);
      return result && !result.issueDeleted ? [{ occurrence, result, receivedAt: event.receivedAt }] : [];
    });
    await deps.alertEvaluator.afterBatch(pairs);
    alertTimer();
  }
  deps.metrics.storeBatchSize.observe({ store: 'events' }, rows.length);
  for (const [projectId, count] of countByProject(rows)) {
    deps.metrics.pipelineProcessed.inc({ category: 'error', project_id: String(projectId) }, count);
  }
  const now = Date.now() / 1000;
  for (const row of rows) deps.metrics.pipelineEventAge.observe(Math.max(0, now - row.receivedAt));
  outcomes.recordTo(deps.outcomes);
}

/**
 * The payloads of a batch that failed before its rows were stored. It goes again, and its events
 * get payloads of their own: these are let go (where the store keeps them apart, they go on its
 * erasure list). Best effort: the error is the batch's.
 */
async function letGo(events: EventStore, payloads: string[]): Promise<void> {
  await events.insertEvents([], payloads).catch(() => {});
}
