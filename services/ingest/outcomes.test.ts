// Every way ingest refuses or drops SDK data, each walked once through the real SDK endpoints
// (real stores, a real write-ahead queue), with the outcomes it records checked exactly: the
// right reason and category, counted once, and nothing for refusals of no project's data.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { startIngestEndpoint, type IngestEndpoint } from '../../test/support/ingest-endpoint.ts';
import type { Metrics } from '../runtime/metrics.ts';

const KEY = 'k'.repeat(32);
let stores: EmbeddedStores;
let dir: string;
let projectId: number;
const endpoints: IngestEndpoint[] = [];
type Ingest = IngestEndpoint;

/** An ingest endpoint on a port of its own with small limits: generous rates, or a tight rate limit. */
async function startIngest(rateLimits: { eventsPerMinute: number; logsPerMinute: number }, memoryBytes = 64 * 1024 * 1024) {
  const ingest = await startIngestEndpoint(stores.metadata, dir, {
    rateLimits,
    memoryBytes,
    limits: { maxEventBytes: 4096, maxLogItemBytes: 8192, maxEnvelopeItems: 10 },
    bodyLimits: { maxRequestBytes: 64 * 1024, maxDecompressedBytes: 1024 * 1024, maxCompressionRatio: 10 },
  });
  endpoints.push(ingest);
  return ingest;
}

let open: Ingest;
let tight: Ingest;
let starved: Ingest;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'errata-outcomes-'));
  stores = await openEmbeddedStores();
  const org = await stores.metadata.ensureOrganization('default', 'Default');
  ({
    project: { id: projectId },
  } = await stores.metadata.createProject(
    { organizationId: org.id, slug: 'shop', name: 'Shop' },
    { publicKey: KEY, label: 'Default' },
  ));
  open = await startIngest({ eventsPerMinute: 1_000_000, logsPerMinute: 1_000_000 });
  tight = await startIngest({ eventsPerMinute: 0, logsPerMinute: 0 });
  starved = await startIngest({ eventsPerMinute: 1_000_000, logsPerMinute: 1_000_000 }, 32 * 1024);
});
afterAll(async () => {
  for (const endpoint of endpoints) await endpoint.close();
  await stores.close();
  await rm(dir, { recursive: true, force: true });
});

async function outcomes(metrics: Metrics): Promise<Record<string, number>> {
  const metric = await metrics.outcomes.get();
  // Whatever ingest counts, it refused: none of it is a loss after acceptance.
  for (const v of metric.values) expect(v.labels.stage).toBe('ingest');
  return Object.fromEntries(metric.values.map((v) => [`${v.labels.reason}/${v.labels.category}`, v.value]));
}

interface Case {
  ingest?: () => Ingest;
  endpoint?: 'envelope' | 'store';
  /** The project id in the URL, when not the key's. */
  urlProjectId?: number;
  query?: string;
  method?: string;
  headers?: Record<string, string>;
  body: Buffer | string;
}

/** Sends one request; returns its status and the outcomes it recorded (only those that changed). */
async function walk(c: Case): Promise<{ status: number; recorded: Record<string, number> }> {
  const ingest = (c.ingest ?? (() => open))();
  const before = await outcomes(ingest.metrics);
  const query = c.query ?? `?sentry_key=${KEY}`;
  const response = await fetch(`${ingest.url}/api/${c.urlProjectId ?? projectId}/${c.endpoint ?? 'envelope'}/${query}`, {
    method: c.method ?? 'POST',
    headers: c.headers ?? {},
    ...(c.method === 'GET' ? {} : { body: c.body === undefined || typeof c.body === 'string' ? c.body : new Uint8Array(c.body) }),
  });
  await response.arrayBuffer();
  const after = await outcomes(ingest.metrics);
  const recorded = Object.fromEntries(
    Object.entries(after)
      .map(([key, value]) => [key, value - (before[key] ?? 0)] as const)
      .filter(([, delta]) => delta !== 0),
  );
  return { status: response.status, recorded };
}

const envelope = (...items: string[]) => `{}\n${items.join('')}`;
const event = (text = 'x') => `{"type":"event"}\n{"message":"${text}"}\n`;
const log = (records = 1) =>
  `{"type":"log","item_count":${records}}\n{"items":[${Array.from({ length: records }, () => '{"body":"b"}').join(',')}]}\n`;

describe('every refusal records its outcome once, where the request ends', () => {
  it.each<[string, Case, number, Record<string, number>]>([
    ['a body over the request limit', { body: Buffer.alloc(65 * 1024, 0x20) }, 413, { 'too_large/unknown': 1 }],
    [
      'a body over the decompressed limit',
      { body: gzipSync(Buffer.alloc(2 * 1024 * 1024, 0x20)), headers: { 'content-encoding': 'gzip' } },
      413,
      { 'too_large/unknown': 1 },
    ],
    [
      'an envelope header over 64 KiB with no key in the request',
      { query: '', body: `{"sdk":"${'x'.repeat(70 * 1024)}"}\n` },
      413,
      { 'too_large/unknown': 1 },
    ],
    [
      'an unsupported Content-Encoding',
      { body: envelope(event()), headers: { 'content-encoding': 'zstd' } },
      400,
      { 'invalid_payload/unknown': 1 },
    ],
    [
      'a body that is not what its encoding says',
      { body: envelope(event()), headers: { 'content-encoding': 'gzip' } },
      400,
      { 'invalid_payload/unknown': 1 },
    ],
    ['a header that is not JSON', { body: 'nope\n' }, 400, { 'invalid_envelope/unknown': 1 }],
    [
      'a header nested too deep',
      { body: `{"sdk":${'['.repeat(200)}${']'.repeat(200)}}\n` },
      400,
      { 'invalid_envelope/unknown': 1 },
    ],
    ['two events in one envelope', { body: envelope(event(), event()) }, 400, { 'invalid_envelope/unknown': 1 }],
    [
      'a key that disagrees with the envelope dsn',
      { body: `{"dsn":"http://${'d'.repeat(32)}@localhost/1"}\n${event()}` },
      400,
      { 'invalid_envelope/unknown': 1 },
    ],
    [
      'more items than the envelope may hold',
      { body: envelope(...Array.from({ length: 11 }, () => log())) },
      413,
      { 'too_large/unknown': 1 },
    ],
    [
      'an event item over its limit, with a log beside it',
      { body: envelope(event('e'.repeat(5000)), log(3)) },
      413,
      { 'too_large/error': 1, 'too_large/log_item': 3 },
    ],
    ['a log item over its limit, counted by its records', { body: envelope(log(1000)) }, 413, { 'too_large/log_item': 1000 }],
    [
      'everything rate-limited, an item of a type not stored beside it',
      { ingest: () => tight, body: envelope(event(), '{"type":"transaction"}\n{}\n') },
      429,
      { 'rate_limited/error': 1, 'item_not_stored/transaction': 1 },
    ],
    [
      'items Errata does not store, beside an event it does',
      {
        body: envelope(event(), '{"type":"client_report"}\n{}\n', '{"type":"who_knows"}\n{}\n', '{"type":"integration"}\n{}\n'),
      },
      200,
      { 'item_not_stored/internal': 1, 'unknown_item_type/unknown': 1, 'internal_item_type/internal': 1 },
    ],
    [
      'a /store/ body that is not JSON (it counted nothing)',
      { endpoint: 'store', body: '{not json' },
      400,
      { 'invalid_json/error': 1 },
    ],
    ['a /store/ body that is no object', { endpoint: 'store', body: '[1, 2]' }, 400, { 'invalid_json/error': 1 }],
    ['a /store/ body that is neither JSON nor base64 JSON', { endpoint: 'store', body: '%%%' }, 400, { 'invalid_json/error': 1 }],
    [
      'a /store/ event over its limit',
      { endpoint: 'store', body: `{"message":"${'s'.repeat(5000)}"}` },
      413,
      { 'too_large/error': 1 },
    ],
    [
      "a URL naming another project than the key's",
      { urlProjectId: 999_999, body: envelope(event()) },
      403,
      { 'project_id/unknown': 1 },
    ],
    [
      "a header dsn, the only credential, naming another project than the key's",
      { query: '', body: `{"dsn":"http://${KEY}@localhost/999999"}\n${event()}` },
      403,
      { 'project_id/unknown': 1 },
    ],
    ['no key at all', { query: '', endpoint: 'store', body: '{}' }, 401, {}],
    ['an unknown key', { query: `?sentry_key=${'u'.repeat(32)}`, body: envelope(event()) }, 403, {}],
    ['a GET to /envelope/', { method: 'GET', body: '' }, 405, {}],
    ['a PUT to /store/', { endpoint: 'store', method: 'PUT', body: '{}' }, 405, {}],
    ['a GET to /store/ without sentry_data', { endpoint: 'store', method: 'GET', body: '' }, 400, { 'invalid_json/error': 1 }],
    [
      'a GET to /store/ whose sentry_data is not JSON',
      { endpoint: 'store', method: 'GET', query: `?sentry_key=${KEY}&sentry_data=%25%25`, body: '' },
      400,
      { 'invalid_json/error': 1 },
    ],
    ['a GET to /store/ without a key', { endpoint: 'store', method: 'GET', query: '?sentry_data=%7B%7D', body: '' }, 401, {}],
    [
      'a body larger than all of ingest memory (never storable)',
      { ingest: () => starved, body: Buffer.alloc(60 * 1024, 0x20) },
      413,
      { 'too_large/unknown': 1 },
    ],
  ])('%s', async (_name, c, status, recorded) => {
    expect(await walk(c)).toEqual({ status, recorded });
  });

  it('answers 503 while other requests hold ingest memory, recording nothing (retried by the SDK)', async () => {
    const other = starved.bodyBudget.lease();
    expect(other.take(24 * 1024)).toBeUndefined();
    try {
      expect(await walk({ ingest: () => starved, body: Buffer.alloc(16 * 1024, 0x20) })).toEqual({ status: 503, recorded: {} });
    } finally {
      other.release();
    }
  });

  it('gives back the rate limit of items refused for memory, so the project is not limited once ingest recovers', async () => {
    const large = envelope(event('x'.repeat(3300)));
    // Before, the refused events had spent the project's minute: the first of these met 429.
    const limitedOnlyAfterTwo = async (ingest: Ingest) => {
      for (const status of [200, 200, 429])
        expect((await walk({ ingest: () => ingest, body: envelope(event()) })).status).toBe(status);
    };

    // Room for the large event's body beside another request, not for its queued copy too: 503.
    const shared = await startIngest({ eventsPerMinute: 2, logsPerMinute: 0 }, 16 * 1024);
    const other = shared.bodyBudget.lease();
    expect(other.take(10 * 1024)).toBeUndefined();
    for (let i = 0; i < 2; i++) expect(await walk({ ingest: () => shared, body: large })).toEqual({ status: 503, recorded: {} });
    other.release();
    await limitedOnlyAfterTwo(shared);

    // Room for its body alone, never for its queued copy beside it: 413, the event dropped, and
    // the logs beside it over their rate limit counted too (before, only the event was).
    const cramped = await startIngest({ eventsPerMinute: 2, logsPerMinute: 0 }, 6 * 1024);
    for (let i = 0; i < 2; i++) {
      expect(await walk({ ingest: () => cramped, body: envelope(event('x'.repeat(3300)), log(3)) })).toEqual({
        status: 413,
        recorded: { 'too_large/error': 1, 'rate_limited/log_item': 3 },
      });
    }
    await limitedOnlyAfterTwo(cramped);
  });

  it('counts what a request accepted in part: records over the rate limit beside an accepted event', async () => {
    const partial = await startIngest({ eventsPerMinute: 10, logsPerMinute: 0 });
    expect(await walk({ ingest: () => partial, body: envelope(event(), log(3)) })).toEqual({
      status: 200,
      recorded: { 'rate_limited/log_item': 3 },
    });
    // What it accepted is counted by category and project, for the SRE's per-project rates.
    const accepted = await partial.metrics.accepted.get();
    expect(accepted.values.map((v) => ({ labels: v.labels, value: v.value }))).toEqual([
      { labels: { category: 'error', project_id: String(projectId) }, value: 1 },
    ]);
  });
});
