// The CPU part of the event pipeline, for a batch of queue records: parse, prepare (normalize,
// in-app, JS modules), symbolicate JS frames (the only I/O here: loading source maps), group,
// summarize, serialize the payload once and encode it as the event store keeps it. What it
// returns is what the stores then record.
import { setImmediate as turnOfTheEventLoop } from 'node:timers/promises';
import { userKey } from '../core/event/context.ts';
import { traceIdOf } from '../core/event/event.ts';
import type { Occurrence } from '../core/issues/occurrence.ts';
import type { OutcomeReason } from '../core/outcomes.ts';
import { groupEvent, prepareEvent } from '../core/pipeline/process-event.ts';
import type { NormalizedEvent } from '../core/event/event.ts';
import type { NewEvent } from '../core/ports/event-store.ts';
import type { Logger } from '../runtime/logger.ts';
import type { GroupingRulesFor } from './grouping-rules-loader.ts';
import { readQueuedJson } from './queued-json.ts';

export interface PreparedEvent {
  occurrence: Occurrence;
  /** The event row, waiting for its issue id. */
  event: Omit<NewEvent, 'issueId'>;
}

export interface PreparedBatch {
  prepared: PreparedEvent[];
  /** Records that could not be read, each to be counted with its reason. */
  dropped: OutcomeReason[];
}

interface RecordToPrepare {
  topic: string;
  offset: string;
  value: Buffer;
}

/** Rewrites an event's frames from uploaded source maps (source-map-symbolicator.ts). */
type Symbolicate = (projectId: number, event: NormalizedEvent) => Promise<void>;

interface PrepareOptions {
  /** The event store's form of the payload (EventStore.encodePayload), made as each event is prepared. */
  encodePayload: (payloadJson: string) => string;
  logger: Logger;
  symbolicate?: Symbolicate;
  groupingRulesFor?: GroupingRulesFor;
}

/**
 * How long preparing runs before it lets the thread's other work in, checked between events. The
 * loop's awaits are mostly of promises already settled (only symbolication reads files), which
 * never yield to messages or I/O, so a batch of a thousand events held the standalone backend
 * thread for a few hundred milliseconds: every health check and dashboard query of the main
 * thread waited that long (docs/benchmarks.md, 2026-12-05).
 */
const YIELD_AFTER_MS = 10;

export async function prepareEvents(
  records: RecordToPrepare[],
  { encodePayload, logger, symbolicate, groupingRulesFor }: PrepareOptions,
): Promise<PreparedBatch> {
  const batch: PreparedBatch = { prepared: [], dropped: [] };
  let lastTurn = performance.now();
  for (const record of records) {
    if (performance.now() - lastTurn >= YIELD_AFTER_MS) {
      await turnOfTheEventLoop();
      lastTurn = performance.now();
    }
    const item = readQueuedJson(record.value, record, logger);
    if ('dropped' in item) {
      batch.dropped.push(item.dropped);
      continue;
    }
    const { header } = item;
    const prepared = prepareEvent(item.json, {
      eventId: header.id,
      receivedAt: header.receivedAt,
      ...(header.clientIp ? { clientIp: header.clientIp } : {}),
      envelopeSdk: header.sdk,
      sentAt: header.sentAt,
    });
    if (symbolicate) await symbolicate(header.projectId, prepared);
    const rules = groupingRulesFor && (await groupingRulesFor(header.projectId));
    const { event, grouping, summary } = groupEvent(prepared, rules);
    const common = {
      projectId: header.projectId,
      eventId: header.id,
      title: summary.title,
      culprit: summary.culprit,
      environment: event.environment ?? null,
      release: event.release ?? null,
      userKey: userKey(event.user) ?? null,
    };
    batch.prepared.push({
      occurrence: {
        ...common,
        hashes: grouping.hashes,
        level: event.level,
        type: event.type,
        metadata: summary.metadata,
        timestamp: event.timestamp,
        tags: summaryTags(event),
      },
      event: {
        ...common,
        timestamp: event.timestamp,
        receivedAt: event.received,
        level: event.level,
        platform: event.platform,
        traceId: traceIdOf(event) ?? null,
        encodedPayload: encodePayload(JSON.stringify(event)),
      },
    });
  }
  return batch;
}

/** The tags an issue's summary counts: the event's own, and its environment and release unless a tag of that name says otherwise. */
function summaryTags(event: NormalizedEvent): Record<string, string> {
  const tags = { ...event.tags };
  if (event.environment) tags.environment ??= event.environment;
  if (event.release) tags.release ??= event.release;
  return tags;
}
