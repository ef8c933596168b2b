// The dispatcher's event pipeline, one queue batch at a time (see docs/path-of-an-event.md):
//   decode -> parse -> processEvent (normalize, in-app, JS modules, group, summarize)
//   -> record occurrences (issues, counts; one metadata transaction) -> store events.
// Everything here is idempotent by event id: a redelivered batch finds its events already
// counted, counts nothing twice, and (re)writes the same event rows.
import { userKey } from '../core/event/context.ts';
import { traceIdOf, type NormalizedEvent } from '../core/event/event.ts';
import type { Occurrence } from '../core/issues/occurrence.ts';
import type { OutcomeRecorder } from '../core/outcomes.ts';
import { processEvent } from '../core/pipeline/process-event.ts';
import type { EventStore, StoredEvent } from '../core/ports/event-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { BatchHandler, DeliveredRecord } from '../core/ports/queue.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { parseQueuedJson } from './queued-json.ts';

export interface EventPipelineDeps {
  metadata: MetadataStore;
  events: EventStore;
  outcomes: OutcomeRecorder;
  metrics: Metrics;
  logger: Logger;
}

interface Prepared {
  occurrence: Occurrence;
  event: NormalizedEvent;
}

export function eventPipeline(deps: EventPipelineDeps): BatchHandler {
  return async (records) => {
    const prepared = timed(deps, 'normalize_and_group', () =>
      records.map((record) => prepare(deps, record)).filter((p): p is Prepared => p !== undefined),
    );
    if (prepared.length === 0) return;

    const recordTimer = deps.metrics.pipelineStepDuration.startTimer({ step: 'record_occurrences' });
    const results = await deps.metadata.recordOccurrences(prepared.map((p) => p.occurrence));
    recordTimer();

    const byEvent = new Map(results.map((r) => [`${r.projectId}:${r.eventId}`, r]));
    const rows: StoredEvent[] = [];
    const seen = new Set<string>();
    for (const { occurrence, event } of prepared) {
      const key = `${occurrence.projectId}:${occurrence.eventId}`;
      const result = byEvent.get(key);
      if (!result) {
        deps.outcomes.record('project_missing', 'error');
        continue;
      }
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push({
        projectId: occurrence.projectId,
        eventId: occurrence.eventId,
        issueId: result.issueId,
        timestamp: event.timestamp,
        receivedAt: event.received,
        level: event.level,
        title: occurrence.title,
        culprit: occurrence.culprit,
        platform: event.platform,
        environment: event.environment ?? null,
        release: event.release ?? null,
        traceId: traceIdOf(event) ?? null,
        userKey: occurrence.userKey,
        payload: event,
      });
    }
    const storeTimer = deps.metrics.pipelineStepDuration.startTimer({ step: 'store_events' });
    await deps.events.insertEvents(rows);
    storeTimer();
    deps.metrics.storeBatchSize.observe({ store: 'events' }, rows.length);
    deps.metrics.pipelineProcessed.inc({ category: 'error' }, rows.length);
  };
}

/** One queued event, ready to be recorded; nothing when it cannot be read (counted). */
function prepare(deps: EventPipelineDeps, record: DeliveredRecord): Prepared | undefined {
  const item = parseQueuedJson(record, 'error', deps);
  if (!item) return undefined;
  const { header } = item;
  const { event, grouping, summary } = processEvent(item.json, {
    eventId: header.id,
    receivedAt: header.receivedAt,
    ...(header.clientIp ? { clientIp: header.clientIp } : {}),
    envelopeSdk: header.sdk,
  });
  return {
    event,
    occurrence: {
      projectId: header.projectId,
      eventId: header.id,
      hashes: grouping.hashes,
      title: summary.title,
      culprit: summary.culprit,
      level: event.level,
      type: event.type,
      metadata: summary.metadata,
      timestamp: event.timestamp,
      environment: event.environment ?? null,
      release: event.release ?? null,
      userKey: userKey(event.user) ?? null,
    },
  };
}

function timed<T>(deps: EventPipelineDeps, step: string, work: () => T): T {
  const stop = deps.metrics.pipelineStepDuration.startTimer({ step });
  try {
    return work();
  } finally {
    stop();
  }
}
