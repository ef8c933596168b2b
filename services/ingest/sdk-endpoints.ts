// The SDK endpoints: POST /api/{project_id}/envelope/ and the legacy /api/{project_id}/store/
// (POST, or GET with the event in the query: get-store.ts), each also under a DSN path prefix.
// The DSN public key decides the project; the {project_id} a request states (in its URL, or in
// its envelope header's dsn) must be that key's project, as in Relay.
import { inflateSync } from 'node:zlib';
import type Koa from 'koa';
import { EnvelopeFramingError, parseEnvelope, type EnvelopeItem } from '../core/envelope/parse-envelope.ts';
import { dropping, ErrataError, PayloadTooLargeError, UnauthorizedError, UserInputError } from '../core/errors.ts';
import { envelopeSdk } from '../core/ingest/envelope-sdk.ts';
import { newEventId, parseEventId } from '../core/ingest/event-id.ts';
import { outcome, type Outcome } from '../core/outcomes.ts';
import { publicKeyFromRequest, type AuthCarriers } from '../core/ingest/sentry-auth.ts';
import {
  authenticatingHeader,
  envelopeAuth,
  requestOrigin,
  type EnvelopeAuth,
  type EnvelopeRequest,
} from '../core/ingest/envelope-auth.ts';
import { checkStatedProject } from '../core/ingest/stated-project.ts';
import { acceptItems, authorizeKey, type AcceptResult, type IngestDeps } from './accept-items.ts';
import type { KeyInfo } from './key-cache.ts';
import { storeDataFromQuery, TRANSPARENT_PIXEL } from './get-store.ts';
import { formatBytes, readBody, type BodyBudget, type BodyLimits, type FirstLineCheck, type MemoryLease } from './read-body.ts';

/**
 * Longest envelope header read before the key it carries is checked, when the request itself
 * carries none: an unauthenticated client gets no further than this into the body.
 */
const MAX_UNAUTHENTICATED_HEADER_BYTES = 64 * 1024;

/** `[/prefix]/api/[<id>/]envelope/` or `.../store/`, trailing slash optional. */
const SDK_PATH = /^(?:\/[^/]+)*?\/api\/(?:(\d+)\/)?(store|envelope)\/?$/;

export function sdkEndpointOf(path: string): 'store' | 'envelope' | undefined {
  return SDK_PATH.exec(path)?.[2] as 'store' | 'envelope' | undefined;
}

/** The project id an SDK path states, if it has one (the legacy `/api/store/` has none). */
function pathProjectIdOf(path: string): number | undefined {
  const id = SDK_PATH.exec(path)?.[1];
  return id === undefined ? undefined : Number(id);
}

export function sdkEndpoints(deps: SdkDeps): Koa.Middleware {
  return async (ctx, next) => {
    const endpoint = sdkEndpointOf(ctx.path);
    if (!endpoint) return next();
    ctx.state.route = `/api/{id}/${endpoint}/`;
    const isGetStore = endpoint === 'store' && ctx.method === 'GET';
    if (ctx.method !== 'POST' && !isGetStore) {
      const allowed = endpoint === 'store' ? 'GET, POST' : 'POST';
      ctx.status = 405;
      ctx.set('Allow', `${allowed}, OPTIONS`);
      ctx.body = {
        error: {
          code: 'method_not_allowed',
          message: `use ${allowed.replace(', ', ' or ')} to send events to /api/{id}/${endpoint}/`,
        },
      };
      return;
    }
    deps.metrics.ingestRequests.inc({ endpoint, encoding: encodingLabel(ctx.get('content-encoding')) });
    // The one place ingest records what a request drops: what was not stored of an accepted
    // request, or what its refusal carries.
    let result: AcceptResult;
    try {
      result = await receive(deps, ctx, endpoint);
    } catch (error) {
      for (const dropped of refusalOutcomes(error, endpoint)) record(deps, dropped);
      throw error;
    }
    for (const dropped of result.outcomes) record(deps, dropped);
    if (result.rateLimitHeader) ctx.set('X-Sentry-Rate-Limits', result.rateLimitHeader);
    if (isGetStore) {
      ctx.type = 'image/gif';
      ctx.body = TRANSPARENT_PIXEL;
    } else ctx.body = result.eventId ? { id: result.eventId } : {};
  };
}

type SdkDeps = IngestDeps & { bodyLimits: BodyLimits; bodyBudget: BodyBudget };

async function receive(deps: SdkDeps, ctx: Koa.Context, endpoint: 'store' | 'envelope'): Promise<AcceptResult> {
  const carriers: AuthCarriers = {
    xSentryAuth: ctx.get('x-sentry-auth') || undefined,
    authorization: ctx.get('authorization') || undefined,
    query: new URLSearchParams(ctx.querystring),
  };
  // A key in the request itself is checked before the body is read: cheap refusals first.
  // Without one, only the envelope header is inflated until the key it names is checked.
  const requestKey = publicKeyFromRequest(carriers);
  const pathProjectId = pathProjectIdOf(ctx.path);
  const requestKeyInfo = requestKey ? await authorizeKey(deps.keys, requestKey) : undefined;
  // A key in the request makes the URL's project id the one stated; without one, the envelope
  // header's dsn states it (checked once that header is read).
  if (requestKeyInfo) checkStatedProject(pathProjectId, requestKeyInfo.projectId);
  // Behind trusted proxies, the address the outermost one saw (ERRATA_TRUSTED_PROXIES).
  const clientIp = ctx.ip || undefined;
  if (ctx.method === 'GET') {
    if (!requestKeyInfo) throw missingStoreKey();
    const lease = deps.bodyBudget.lease();
    try {
      return await acceptStoreEvent(deps, storeDataFromQuery(carriers.query), requestKeyInfo, clientIp, lease);
    } finally {
      lease.release();
    }
  }
  const isEnvelope = endpoint === 'envelope' || ctx.get('content-type').startsWith('application/x-sentry-envelope');
  if (!isEnvelope && !requestKeyInfo) throw missingStoreKey();
  const request: EnvelopeRequest = {
    publicKey: requestKey,
    pathProjectId,
    origin: requestOrigin(ctx.get('origin') || undefined, ctx.get('referer') || undefined),
  };
  let headerKeyInfo: KeyInfo | undefined;
  const firstLine: FirstLineCheck | undefined = requestKeyInfo
    ? undefined
    : {
        maxBytes: MAX_UNAUTHENTICATED_HEADER_BYTES,
        check: async (line) => {
          headerKeyInfo = await authorizedKeyOf(deps, envelopeAuth(request, authenticatingHeader(line)));
        },
      };
  const lease = deps.bodyBudget.lease();
  try {
    const body = await readBody(ctx.req, deps.bodyLimits, lease, firstLine);
    return await (isEnvelope
      ? acceptEnvelope(deps, body, request, requestKeyInfo ?? headerKeyInfo, clientIp, lease)
      : acceptStoreEvent(deps, body, requestKeyInfo!, clientIp, lease));
  } finally {
    lease.release();
  }
}

/**
 * What a refusal drops: what its error carries; for a refusal of the data that carries
 * nothing, the request as a whole (its items unknown). Refusals before the project is known
 * (401, 403) and 503s (retried) drop nothing countable.
 */
function refusalOutcomes(error: unknown, endpoint: 'store' | 'envelope'): readonly Outcome[] {
  if (!(error instanceof ErrataError)) return [];
  if (error.outcomes.length > 0) return error.outcomes;
  if (error.code === 'payload_too_large') return [outcome('too_large')];
  if (error.code === 'invalid_input')
    return [endpoint === 'store' ? outcome('invalid_json', 'error') : outcome('invalid_envelope')];
  return [];
}

function record(deps: IngestDeps, dropped: Outcome): void {
  deps.outcomes.record(dropped.reason, dropped.category, dropped.quantity);
}

/** The key an envelope authenticates with, once it is known to be for the project it states. */
async function authorizedKeyOf(deps: IngestDeps, auth: EnvelopeAuth): Promise<KeyInfo> {
  const key = await authorizeKey(deps.keys, auth.publicKey);
  checkStatedProject(auth.projectId, key.projectId);
  return key;
}

async function acceptEnvelope(
  deps: IngestDeps,
  body: Buffer,
  request: EnvelopeRequest,
  knownKey: KeyInfo | undefined,
  clientIp: string | undefined,
  lease: MemoryLease,
): Promise<AcceptResult> {
  const envelope = parseEnvelope(body, { maxItems: deps.limits.maxEnvelopeItems });
  // With a key in the request, the header is held against it here; without one, the first
  // line's check did so already on the same header, and this repeats it.
  const auth = envelopeAuth(request, envelope.headers);
  const key = knownKey ?? (await authorizeKey(deps.keys, auth.publicKey));
  checkStatedProject(auth.projectId, key.projectId);
  const eventItems = envelope.items.filter((item) => item.headers.type === 'event');
  if (eventItems.length > 1) {
    throw new EnvelopeFramingError(
      `the envelope has ${eventItems.length} event items: send each event in an envelope of its own`,
    );
  }
  // SDKs put the id in the envelope header; only without one is the event parsed for its id
  // (and only an event of acceptable size: a larger one is refused below).
  const eventItem = eventItems[0];
  const headerId = parseEventId(envelope.headers.event_id);
  const payloadId =
    !headerId && eventItem && eventItem.payload.length <= deps.limits.maxEventBytes
      ? eventIdInPayload(eventItem.payload)
      : undefined;
  const sdk = envelopeSdk(envelope.headers.sdk);
  const sentAt = sentAtOf(envelope.headers.sent_at);
  return acceptItems(
    deps,
    key,
    {
      eventId: headerId ?? payloadId ?? newEventId(),
      clientIp,
      ...(sdk ? { sdk } : {}),
      ...(sentAt ? { sentAt } : {}),
      items: envelope.items.map((item) => ({ type: item.headers.type, payload: item.payload, itemCount: itemCount(item) })),
    },
    lease,
  );
}

async function acceptStoreEvent(
  deps: IngestDeps,
  body: Buffer,
  key: KeyInfo,
  clientIp: string | undefined,
  lease: MemoryLease,
): Promise<AcceptResult> {
  const json = decodeStoreBody(body, deps.limits.maxEventBytes);
  // Refused before parsing: a body of many megabytes would otherwise be parsed for nothing.
  if (json.length > deps.limits.maxEventBytes) throw eventTooLarge(json.length, deps.limits.maxEventBytes);
  let event: unknown;
  try {
    event = JSON.parse(json.toString('utf8'));
  } catch {
    throw notOneEvent('invalid JSON data: the store endpoint takes one JSON event object');
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw notOneEvent('invalid JSON data: the store endpoint takes one JSON event object');
  }
  const record = event as Record<string, unknown>;
  return acceptItems(
    deps,
    key,
    {
      eventId: parseEventId(record.event_id) ?? newEventId(),
      clientIp,
      items: [{ type: record.type === 'transaction' ? 'transaction' : 'event', payload: json, itemCount: 1 }],
    },
    lease,
  );
}

function missingStoreKey(): UnauthorizedError {
  return new UnauthorizedError('missing authorization information: send the DSN public key in X-Sentry-Auth or as sentry_key');
}

function eventTooLarge(size: number, limit: number): PayloadTooLargeError {
  return dropping(
    new PayloadTooLargeError(
      `event of ${formatBytes(size)} exceeds ${formatBytes(limit)} (ERRATA_MAX_EVENT_BYTES): trim extra data or breadcrumbs`,
      limit,
    ),
    outcome('too_large', 'error'),
  );
}

/** A /store/ body that is no event: its one event counted as invalid JSON. */
function notOneEvent(message: string): UserInputError {
  return dropping(new UserInputError(message), outcome('invalid_json', 'error'));
}

/**
 * Legacy store bodies: plain JSON, or base64 of JSON, or base64 of zlib-compressed JSON. Only
 * the first byte is looked at before the size is known to fit: a body inflated from a few KB of
 * gzip holds up to 100 MiB, and decoding all of it as text, then as base64, took some 250 MB
 * beyond the body, outside the ingest memory budget.
 */
function decodeStoreBody(body: Buffer, maxEventBytes: number): Buffer {
  let start = 0;
  while (start < body.length && LEADING_SPACE.has(body[start]!)) start++;
  if (start === body.length || body[start] === 0x7b) return body;
  const largest = maxBase64Length(maxEventBytes);
  if (body.length - start > largest) throw eventTooLarge(Math.floor(((body.length - start) * 3) / 4), maxEventBytes);
  const decoded = Buffer.from(body.toString('latin1', start).trim(), 'base64');
  if (decoded[0] === 0x7b) return decoded;
  try {
    return inflateSync(decoded, { maxOutputLength: maxEventBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw eventTooLarge(maxEventBytes + 1, maxEventBytes);
    throw notOneEvent('invalid JSON data: the body is neither JSON nor base64-encoded (zlib) JSON');
  }
}

/** Bytes String.prototype.trimStart skips in a latin1 body: tab, line breaks, space, no-break space. */
const LEADING_SPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]);

/**
 * The longest base64 body whose event can be within `maxEventBytes`: base64 holds 3 bytes in 4
 * characters, and zlib's output is never much smaller than its input (deflateBound: the input
 * plus about 0.03% and 13 bytes, so a longer stream inflates past the limit). Line breaks and
 * spaces in the text are allowed for with a tenth more (MIME's CRLF every 76 characters adds 2.6%).
 */
function maxBase64Length(maxEventBytes: number): number {
  const deflateBound = maxEventBytes + (maxEventBytes >> 12) + (maxEventBytes >> 14) + (maxEventBytes >> 25) + 13;
  return Math.ceil((Math.ceil(deflateBound / 3) * 4 * 11) / 10);
}

/**
 * The records a container declares (what is rate-limited and accepted), within what its bytes
 * can hold: a record takes at least two (`{}`), so `item_count: 1e9` on a small item cannot
 * inflate the counts.
 */
function itemCount(item: EnvelopeItem): number {
  const count = item.headers.item_count;
  const declared = typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? count : 1;
  return Math.min(declared, Math.max(1, Math.floor(item.payload.length / 2)));
}

function eventIdInPayload(payload: Buffer): string | undefined {
  try {
    return parseEventId((JSON.parse(payload.toString('utf8')) as { event_id?: unknown }).event_id);
  } catch {
    return undefined;
  }
}

/**
 * The header's `sent_at` if it can be a time (RFC 3339 is under 40 characters); anything else
 * is left out, not refused as Relay refuses it: a bad clock hint must not cost the event.
 */
function sentAtOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 64 ? value : undefined;
}

function encodingLabel(header: string): string {
  const value = header.trim().toLowerCase();
  return ['gzip', 'x-gzip', 'deflate', 'br'].includes(value) ? value : value === '' ? 'identity' : 'other';
}
