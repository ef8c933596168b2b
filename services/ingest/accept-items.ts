// The shared tail of both SDK endpoints (ingest role, after parsing and authentication): size
// limits, per-project rate limits, then one durable publish of everything accepted. Items that
// are not kept are counted with their reason; the request path writes to no store.
import { createHash } from 'node:crypto';
import { dropping, ForbiddenError, PayloadTooLargeError, RateLimitedError, UnavailableError } from '../core/errors.ts';
import { discardedEvents, type DiscardedEvents } from '../core/ingest/client-report.ts';
import type { EnvelopeSdk } from '../core/ingest/envelope-sdk.ts';
import { routeItem } from '../core/ingest/item-types.ts';
import { formatRateLimitHeader, type RateLimiter } from '../core/ingest/rate-limit.ts';
import { outcome, type DataCategory, type Outcome, type OutcomeRecorder } from '../core/outcomes.ts';
import { encodeQueuedItem, TOPICS, type QueuedItemHeader } from '../core/pipeline/queued-item.ts';
import type { Queue, QueueRecord } from '../core/ports/queue.ts';
import type { Metrics } from '../runtime/metrics.ts';
import type { KeyCache, KeyInfo } from './key-cache.ts';
import { formatBytes, UNBOUNDED_LEASE, type MemoryLease } from './read-body.ts';

export interface IngestDeps {
  queue: Queue;
  keys: KeyCache;
  limiter: RateLimiter;
  outcomes: OutcomeRecorder;
  metrics: Metrics;
  limits: { maxEventBytes: number; maxLogItemBytes: number; maxEnvelopeItems: number };
  rateLimits: { eventsPerMinute: number; logsPerMinute: number };
  now: () => number;
}

interface IncomingItem {
  type: string;
  payload: Buffer;
  /** Records in a container item (log items carry `item_count`). */
  itemCount: number;
}

interface Submission {
  /** The event id to answer with when the submission holds an event. */
  eventId: string;
  items: IncomingItem[];
  clientIp?: string;
  /** Bounded at parsing (envelope-sdk.ts); carried on the event alone, the one item that uses it. */
  sdk?: EnvelopeSdk;
  /** The envelope header's `sent_at`, carried on events and logs for clock-drift correction. */
  sentAt?: string;
}

export interface AcceptResult {
  /** Set when an event was accepted. */
  eventId?: string;
  /** X-Sentry-Rate-Limits for items that were limited while others went through. */
  rateLimitHeader?: string;
  /** Items of the request not stored (item types Errata keeps not, rate-limited ones), to record. */
  outcomes: Outcome[];
}

export async function authorizeKey(keys: KeyCache, publicKey: string): Promise<KeyInfo> {
  const key = await keys.lookup(publicKey);
  if (!key)
    throw new ForbiddenError('unknown DSN public key: copy the DSN of an existing project (errata createproject prints one)');
  if (!key.active) throw new ForbiddenError('this DSN key is disabled: enable it again or use another key of the project');
  return key;
}

export async function acceptItems(
  deps: IngestDeps,
  key: KeyInfo,
  submission: Submission,
  lease: Pick<MemoryLease, 'take'> = UNBOUNDED_LEASE,
): Promise<AcceptResult> {
  const routed = submission.items.map((item) => ({ item, route: routeItem(item.type) }));
  refuseOversized(deps, routed);

  const now = deps.now();
  const dropped: Outcome[] = [];
  const limited = new Map<DataCategory, number>();
  const accepted: Array<{
    topic: string;
    record: QueueRecord;
    category: DataCategory;
    quantity: number;
    /** The rate limit bucket it was taken from, given back if the items are not accepted after all. */
    charged: { bucket: string; perMinute: number };
  }> = [];
  let eventId: string | undefined;
  /** What the SDK reports it dropped itself (client_report items), counted once the request is taken. */
  const discarded: DiscardedEvents[] = [];
  for (const [position, { item, route }] of routed.entries()) {
    if (route.kind === 'not_stored') {
      dropped.push(outcome(route.reason, route.category));
      if (item.type === 'client_report') discarded.push(...discardedEvents(item.payload));
      continue;
    }
    const perMinute =
      route.kind === 'event' ? (key.rateLimitPerMinute ?? deps.rateLimits.eventsPerMinute) : deps.rateLimits.logsPerMinute;
    const quantity = route.kind === 'event' ? 1 : item.itemCount;
    const bucket = `${key.projectId}:${route.category}`;
    const decision = deps.limiter.take(bucket, perMinute, quantity, now);
    if (!decision.allowed) {
      dropped.push(outcome('rate_limited', route.category, quantity));
      limited.set(route.category, Math.max(limited.get(route.category) ?? 0, decision.retryAfterSeconds));
      continue;
    }
    const header: QueuedItemHeader = {
      v: 1,
      kind: route.kind,
      id: route.kind === 'event' ? submission.eventId : logContainerId(key.projectId, submission.sentAt, position, item.payload),
      projectId: key.projectId,
      organizationId: key.organizationId,
      receivedAt: now / 1000,
      ...(submission.clientIp ? { clientIp: submission.clientIp } : {}),
      ...(route.kind === 'event' && submission.sdk ? { sdk: submission.sdk } : {}),
      ...(submission.sentAt ? { sentAt: submission.sentAt } : {}),
      ...(route.kind === 'log' ? { itemCount: quantity } : {}),
    };
    if (route.kind === 'event') eventId = submission.eventId;
    accepted.push({
      topic: route.kind === 'event' ? TOPICS.events : TOPICS.logs,
      record: { key: `${key.projectId}:${header.id}`, value: encodeQueuedItem({ header, payload: item.payload }) },
      category: route.category,
      quantity,
      charged: { bucket, perMinute },
    });
  }

  const rateLimitHeader =
    limited.size > 0
      ? formatRateLimitHeader(
          [...limited].map(([category, retryAfterSeconds]) => ({ retryAfterSeconds, categories: categoriesOf(category) })),
        )
      : undefined;
  if (accepted.length === 0 && limited.size > 0) {
    const retryAfter = Math.max(...limited.values());
    throw dropping(
      new RateLimitedError(`rate limit of this project reached: retry after ${retryAfter} seconds`, retryAfter, {
        'X-Sentry-Rate-Limits': rateLimitHeader!,
      }),
      ...dropped,
    );
  }

  // The queued copies are charged before anything is written: a request whose items would
  // outgrow ingest's memory is refused whole (503, SDKs retry; 413 when it needs more than all
  // of it) instead of half-written.
  const queuedBytes = accepted.reduce((sum, { record }) => sum + record.value.length, 0);
  // Items refused whole (503, or 413 for more than all of memory) were not accepted: their share
  // of the rate limit goes back, or a queue outage spent the project's minute and good events
  // met 429 once it was over.
  const giveBack = () => {
    for (const { charged, quantity } of accepted) deps.limiter.giveBack(charged.bucket, charged.perMinute, quantity);
  };
  const refusal = lease.take(queuedBytes);
  if (refusal) {
    giveBack();
    if (refusal instanceof UnavailableError) throw refusal;
    throw dropping(refusal, ...dropped, ...tooLarge(accepted));
  }
  try {
    await publish(deps, accepted);
  } catch (error) {
    giveBack();
    // More in one topic than a Kafka record may hold: never storable, so not a retry later.
    if (error instanceof PayloadTooLargeError) throw dropping(error, ...dropped, ...tooLarge(accepted));
    throw error;
  }
  const project_id = String(key.projectId);
  for (const { category, quantity } of accepted) deps.metrics.accepted.inc({ category, project_id }, quantity);
  for (const { reason, category, quantity } of discarded) deps.metrics.sdkDiscarded.inc({ reason, category }, quantity);
  return { ...(eventId ? { eventId } : {}), ...(rateLimitHeader ? { rateLimitHeader } : {}), outcomes: dropped };
}

/**
 * A log item's id, from the envelope's sent_at, its place in the envelope and its bytes: its
 * records' ids follow from it (normalize-log.ts), so an SDK's retry of an envelope that was
 * stored after all (a publish answered too late, or one of two topics failing) stores nothing
 * twice on Postgres, while two equal items of one envelope, or of two envelopes sent apart, stay
 * two. Before, each attempt drew a random id. (ClickHouse orders logs by time too: a record
 * without a time of its own takes the receive time, which a retry changes.)
 */
function logContainerId(projectId: number, sentAt: string | undefined, position: number, payload: Buffer): string {
  return createHash('sha256')
    .update(`${projectId}:${sentAt ?? ''}:${position}:`)
    .update(payload)
    .digest('hex')
    .slice(0, 32);
}

/** One item over its limit refuses the whole submission (as Relay does), every item counted. */
function refuseOversized(deps: IngestDeps, routed: Array<{ item: IncomingItem; route: ReturnType<typeof routeItem> }>): void {
  for (const { item, route } of routed) {
    const [limit, variable, advice] =
      route.kind === 'event'
        ? [deps.limits.maxEventBytes, 'ERRATA_MAX_EVENT_BYTES', 'trim extra data or breadcrumbs']
        : route.kind === 'log'
          ? [deps.limits.maxLogItemBytes, 'ERRATA_MAX_LOG_ITEM_BYTES', 'flush logs in smaller batches']
          : [Infinity, '', ''];
    if (item.payload.length <= limit) continue;
    throw dropping(
      new PayloadTooLargeError(
        `${item.type} item of ${formatBytes(item.payload.length)} exceeds ${formatBytes(limit)} (${variable}): ${advice}`,
        limit,
      ),
      // Counted as the rate limit counts them: a log item by its records.
      ...routed.map((other) => outcome('too_large', other.route.category, other.route.kind === 'log' ? other.item.itemCount : 1)),
    );
  }
}

// A limited error also stops `default` (message) events, which SDKs count separately.
function categoriesOf(category: DataCategory): string[] {
  return category === 'error' ? ['error', 'default'] : [category];
}

async function publish(deps: IngestDeps, accepted: Array<{ topic: string; record: QueueRecord }>): Promise<void> {
  const byTopic = new Map<string, QueueRecord[]>();
  for (const { topic, record } of accepted) {
    const records = byTopic.get(topic);
    if (records) records.push(record);
    else byTopic.set(topic, [record]);
  }
  await Promise.all(
    [...byTopic].map(async ([topic, records]) => {
      const stop = deps.metrics.queueProduceDuration.startTimer({ topic });
      try {
        // Items need no order: the dispatcher handles each on its own, and a repeated event id
        // is recognised by id wherever it lands. So Kafka appends a request as one batch.
        await deps.queue.publish(topic, records, { unordered: true });
        stop();
        deps.metrics.queuePublishedBytes.inc(
          { topic },
          records.reduce((sum, record) => sum + record.value.length, 0),
        );
      } catch (error) {
        deps.metrics.queueProduceErrors.inc({ topic });
        if (error instanceof UnavailableError || error instanceof PayloadTooLargeError) throw error;
        throw new UnavailableError('the event queue is unavailable: retry later');
      }
    }),
  );
}

/**
 * A request refused for good (413) drops its accepted items as too large, beside what it had
 * dropped already (rate-limited items, those Errata keeps not): those went uncounted.
 */
function tooLarge(accepted: ReadonlyArray<{ category: DataCategory; quantity: number }>): Outcome[] {
  return accepted.map(({ category, quantity }) => outcome('too_large', category, quantity));
}
