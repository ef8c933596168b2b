// Dispatcher step 1 of the path of an event: turn whatever an SDK sent into the one
// NormalizedEvent shape. Never throws on field-level problems: a field of the wrong shape is
// coerced or dropped and noted in `errors`, and the rest of the event is kept.
import {
  boundedJson,
  cappedString,
  isRecord,
  lenientString,
  setOwn,
  storableText,
  withDepthMarkerBudget,
  type JsonRecord,
  type Notes,
} from './coerce.ts';
import { normalizeBreadcrumbs } from './breadcrumbs.ts';
import { clockCorrection } from './clock-drift.ts';
import {
  inferIpSetting,
  normalizeContexts,
  normalizeDebugMeta,
  normalizeFingerprint,
  normalizeModules,
  normalizeRequest,
  normalizeSdk,
  normalizeUser,
} from './context.ts';
import type { NormalizedEvent } from './event.ts';
import { parseLevel } from './level.ts';
import { normalizeMessage } from './message.ts';
import { MAX_FRAMES, normalizeExceptions, normalizeStacktrace } from './stacktrace.ts';
import { normalizeTags } from './tags.ts';
import { implausibleTimestamp, parseTimestamp, withinDateRange } from './timestamp.ts';

export interface NormalizeContext {
  /** The id ingest answered with; it wins over one in the payload. */
  eventId: string;
  /** Seconds since the epoch when ingest accepted the event. */
  receivedAt: number;
  clientIp?: string;
  /** From the envelope header, used when the payload has no `sdk`. */
  envelopeSdk?: unknown;
  /** The envelope header's `sent_at`, as sent: corrects a client clock that is off (clock-drift.ts). */
  sentAt?: unknown;
}

const KNOWN_FIELDS = new Set([
  'event_id',
  'timestamp',
  'received',
  'start_timestamp',
  'type',
  'platform',
  'level',
  'logger',
  'transaction',
  'transaction_info',
  'server_name',
  'release',
  'dist',
  'environment',
  'culprit',
  'message',
  'logentry',
  'sentry.interfaces.Message',
  'exception',
  'sentry.interfaces.Exception',
  'stacktrace',
  'threads',
  'breadcrumbs',
  'tags',
  'user',
  'request',
  'contexts',
  'sdk',
  'fingerprint',
  'extra',
  'modules',
  'debug_meta',
  'errors',
  '_meta',
  'spans',
  'measurements',
  'breakdowns',
  'version',
  'key_id',
  'project',
]);

export function normalizeEvent(raw: unknown, context: NormalizeContext): NormalizedEvent {
  return withDepthMarkerBudget(() => normalizeFields(raw, context));
}

function normalizeFields(raw: unknown, context: NormalizeContext): NormalizedEvent {
  const notes: Notes = [];
  const input: JsonRecord = isRecord(raw) ? raw : {};
  if (!isRecord(raw)) notes.push({ type: 'invalid_data', name: 'event', value: Array.isArray(raw) ? 'array' : typeof raw });
  const correction = clockCorrection(context.sentAt, context.receivedAt);
  if (correction) notes.push(correction.note);
  const drift = correction?.drift ?? 0;

  const event: NormalizedEvent = {
    event_id: context.eventId,
    timestamp: eventTimestamp(input.timestamp, drift, context.receivedAt, notes),
    received: context.receivedAt,
    type: 'default',
    platform: platformOf(input.platform),
    level: 'error',
    tags: normalizeTags(input.tags, notes),
    contexts: normalizeContexts(input.contexts, notes),
  };

  const level = parseLevel(input.level);
  if (level) event.level = level;
  else if (input.level !== undefined) notes.push({ type: 'invalid_data', name: 'level', value: lenientString(input.level) });

  setIf(event, 'logger', singleLine(cappedString(input.logger, 64, 'logger', notes)));
  setIf(event, 'transaction', cappedString(input.transaction, 200, 'transaction', notes)?.trim());
  setIf(event, 'server_name', cappedString(input.server_name, 256, 'server_name', notes));
  setIf(event, 'release', validRelease(input.release, notes));
  setIf(event, 'dist', validDist(input.dist, notes));
  setIf(event, 'environment', validEnvironment(input.environment, notes));
  setIf(event, 'culprit', cappedString(input.culprit, 200, 'culprit', notes));
  setIf(event, 'logentry', normalizeMessage(input, notes));

  const exceptions = normalizeExceptions(input.exception ?? input['sentry.interfaces.Exception'], notes);
  if (exceptions.length > 0) {
    event.exception = { values: exceptions };
    event.type = 'error';
  }
  setIf(event, 'stacktrace', normalizeStacktrace(input.stacktrace, notes));
  setIf(event, 'threads', normalizeThreads(input.threads, notes));
  const breadcrumbs = normalizeBreadcrumbs(input.breadcrumbs, notes);
  for (const crumb of breadcrumbs) {
    if (crumb.timestamp === undefined) continue;
    // A far-future time corrected by a sent_at of 1970 lands past what a Date holds, and every
    // reader of the event then threw (get_issue_context, the issue page): such a time goes.
    const corrected = crumb.timestamp + drift;
    if (withinDateRange(corrected)) crumb.timestamp = corrected;
    else delete crumb.timestamp;
  }
  if (breadcrumbs.length > 0) event.breadcrumbs = { values: breadcrumbs };
  setIf(
    event,
    'user',
    normalizeUser(input.user, context.clientIp, inferIpSetting(isRecord(input.sdk) ? input.sdk : context.envelopeSdk), notes),
  );
  setIf(event, 'request', normalizeRequest(input.request));
  setIf(event, 'sdk', normalizeSdk(input.sdk) ?? normalizeSdk(context.envelopeSdk));
  setIf(event, 'fingerprint', normalizeFingerprint(input.fingerprint, notes));
  if (isRecord(input.extra)) event.extra = boundedJson(input.extra, 7, 16384, 500) as JsonRecord;
  setIf(event, 'modules', normalizeModules(input.modules));
  setIf(event, 'debug_meta', normalizeDebugMeta(input.debug_meta));

  // Fields we do not model are kept, bounded, so the stored payload stays complete.
  for (const [key, value] of Object.entries(input)) {
    if (!KNOWN_FIELDS.has(key) && key.length <= 128) setOwn(event, storableText(key), boundedJson(value, 5, 8192, 200));
  }
  if (notes.length > 0) event.errors = notes.slice(0, 100);
  return event;
}

function setIf<K extends keyof NormalizedEvent>(event: NormalizedEvent, key: K, value: NormalizedEvent[K] | undefined) {
  if (value !== undefined && value !== '') event[key] = value;
}

/** The client's timestamp, corrected for its clock's drift before it is judged plausible (as Relay orders it). */
function eventTimestamp(value: unknown, drift: number, receivedAt: number, notes: Notes): number {
  if (value === undefined || value === null) return receivedAt;
  const sent = parseTimestamp(value);
  if (sent === undefined) {
    notes.push({ type: 'invalid_data', name: 'timestamp', value: lenientString(value)?.slice(0, 64) });
    return receivedAt;
  }
  const parsed = sent + drift;
  const problem = implausibleTimestamp(parsed, receivedAt);
  if (problem) {
    notes.push({ type: problem, name: 'timestamp', value: parsed });
    return receivedAt;
  }
  return parsed;
}

function platformOf(value: unknown): string {
  return typeof value === 'string' && /^[a-z0-9_-]{1,64}$/.test(value) ? value : 'other';
}

function singleLine(value: string | undefined): string | undefined {
  return value?.includes('\n') ? undefined : value;
}

// Sentry's release rules: no newlines, tabs or slashes, not ".", ".." or a lone space.
function validRelease(value: unknown, notes: Notes): string | undefined {
  const release = cappedString(value, 200, 'release', notes)?.trim();
  if (!release) return undefined;
  if (/[\n\r\t/\\]/.test(release) || release === '.' || release === '..' || release.toLowerCase() === 'latest') {
    notes.push({ type: 'invalid_data', name: 'release', value: release.slice(0, 64) });
    return undefined;
  }
  return release;
}

function validEnvironment(value: unknown, notes: Notes): string | undefined {
  const environment = lenientString(value)?.trim();
  if (!environment) return undefined;
  if (environment.length > 64 || /[\n\r/]/.test(environment)) {
    notes.push({ type: 'invalid_data', name: 'environment', value: environment.slice(0, 64) });
    return undefined;
  }
  return environment;
}

function validDist(value: unknown, notes: Notes): string | undefined {
  const dist = lenientString(value)?.trim();
  if (!dist) return undefined;
  if (dist.length > 64 || !/^[a-zA-Z0-9_.-]+$/.test(dist)) {
    notes.push({ type: 'invalid_data', name: 'dist', value: dist.slice(0, 64) });
    return undefined;
  }
  return dist;
}

/**
 * Frames all threads' stack traces may hold together, the crashed and current threads' first.
 * Each trace holds up to MAX_FRAMES (250), and 100 threads of them made an event of 25,000 frames for every
 * grouping rule to look at. Default grouping reads one thread; a fingerprint or stack-trace rule
 * on frames sees those of the threads within this budget (a thread dump of 80 threads of 60).
 */
const MAX_THREAD_FRAMES = 5000;

function normalizeThreads(raw: unknown, notes: Notes): { values: unknown[] } | undefined {
  const values = Array.isArray(raw) ? raw : isRecord(raw) && Array.isArray(raw.values) ? raw.values : undefined;
  if (!values) return undefined;
  const records = values.slice(0, 100).filter(isRecord);
  const firstRead = (thread: JsonRecord) => (thread.crashed === true || thread.current === true ? 0 : 1);
  const framesLeft = new Map<JsonRecord, boolean>();
  let budget = MAX_THREAD_FRAMES;
  for (const thread of [...records].sort((a, b) => firstRead(a) - firstRead(b))) {
    const frames = isRecord(thread.stacktrace) && Array.isArray(thread.stacktrace.frames) ? thread.stacktrace.frames.length : 0;
    const cost = Math.min(frames, MAX_FRAMES);
    framesLeft.set(thread, cost <= budget);
    if (cost <= budget) budget -= cost;
  }
  const threads = records.map((thread) => {
    const out: JsonRecord = {};
    for (const field of ['id', 'name', 'state'] as const) {
      const value = lenientString(thread[field]);
      if (value !== undefined) out[field] = value.slice(0, 256);
    }
    for (const field of ['crashed', 'current', 'main'] as const) {
      if (typeof thread[field] === 'boolean') out[field] = thread[field];
    }
    if (framesLeft.get(thread)) {
      const stacktrace = normalizeStacktrace(thread.stacktrace, notes);
      if (stacktrace) out.stacktrace = stacktrace;
    }
    return out;
  });
  const left = [...framesLeft.values()].filter((kept) => !kept).length;
  if (left > 0)
    notes.push({
      type: 'value_too_long',
      name: 'threads',
      value: `${left} stack traces left out: over ${MAX_THREAD_FRAMES} frames in all`,
    });
  return threads.length > 0 ? { values: threads } : undefined;
}
