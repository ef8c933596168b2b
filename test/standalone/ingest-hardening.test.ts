// The ways one small hostile request could stall, bloat or silently lose data at ingest, each
// tried against a real server: many items in a tiny body, a huge or deep `sdk` in the envelope
// header, deep JSON in a log attribute or an event's message params, and a compression bomb
// sent without a key in the request. Each gets a clear answer, and nothing accepted is lost.
import { randomUUID } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForIssue, waitForLatestEvent, waitForLogs } from '../support/issues.ts';
import { metricTotal } from '../support/metrics.ts';
import { envelopePoster, envelopeUrlOf, eventEnvelope, newEventId } from '../support/raw-http.ts';
import {
  eventually,
  provision,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

let server: StandaloneServer;
let p: Provisioned;
let envelopeUrl: string;

beforeAll(async () => {
  server = await startServer();
  p = await provision(server, 'Hardening');
  envelopeUrl = envelopeUrlOf(server, p);
});
afterAll(async () => {
  await stopAndRemove(server);
});

const id = newEventId;
const post = envelopePoster(() => envelopeUrl);
const gzipped = (body: string) => post(gzipSync(body), { 'content-encoding': 'gzip' });
const queuedBytes = () => metricTotal(server, 'errata_queue_published_bytes_total');
const logItems = (count: number, payload = '{"items":[]}') => `{"type":"log","item_count":1}\n${payload}\n`.repeat(count);

async function healthzWithin(ms: number): Promise<number> {
  const response = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(ms) });
  return response.status;
}

function nested(depth: number, open: string, close: string, inner = '1'): string {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

describe('items per envelope', () => {
  it('refuses 40,000 empty log items in a 2 KB gzip body with 413, and keeps answering meanwhile', async () => {
    const body = gzipSync(`{}\n${logItems(40_000, '{}')}`, { level: 9 });
    expect(body.length).toBeLessThan(4096);
    const tooLarge = await metricTotal(server, 'errata_outcomes_total', { reason: 'too_large' });
    const [response, health] = await Promise.all([post(body, { 'content-encoding': 'gzip' }), healthzWithin(1000)]);
    expect(response.status).toBe(413);
    expect(response.json()).toEqual({
      error: {
        code: 'payload_too_large',
        message: 'the envelope has more than 1000 items (ERRATA_MAX_ENVELOPE_ITEMS): send fewer items per request',
      },
    });
    expect(health).toBe(200);
    expect(await metricTotal(server, 'errata_outcomes_total', { reason: 'too_large' })).toBe(tooLarge + 1);
  });

  it('accepts an envelope of exactly 1,000 log items and stores every record', async () => {
    const marker = `thousand-${randomUUID().slice(0, 8)}`;
    const items = Array.from(
      { length: 1000 },
      (_, i) => `{"type":"log","item_count":1}\n{"items":[{"body":"${marker} ${i}","level":"info"}]}\n`,
    );
    const processed = () => metricTotal(server, 'errata_pipeline_processed_total', { category: 'log_item' });
    const before = await processed();
    expect((await gzipped(`{}\n${items.join('')}`)).status).toBe(200);
    await eventually(async () => ((await processed()) - before >= 1000 ? true : undefined), '1,000 log records processed');
    expect((await processed()) - before).toBe(1000);
    expect(await waitForLogs(server, p, `query=${marker}&limit=100`, 100)).toHaveLength(100);
  });
  it('holds a log item to the records its bytes can hold, whatever item_count it declares', async () => {
    const marker = `declared-${randomUUID().slice(0, 8)}`;
    const payload = `{"items":[{"body":"${marker}"}]}`;
    const accepted = () => metricTotal(server, 'errata_ingest_accepted_total', { category: 'log_item' });
    const limited = () => metricTotal(server, 'errata_outcomes_total', { reason: 'rate_limited', category: 'log_item' });
    const [acceptedBefore, limitedBefore] = [await accepted(), await limited()];
    expect((await post(`{}\n{"type":"log","item_count":1000000000}\n${payload}\n`)).status).toBe(200);
    expect((await accepted()) - acceptedBefore).toBe(Math.floor(payload.length / 2));
    expect(await limited()).toBe(limitedBefore);
    await waitForLogs(server, p, `query=${marker}`, 1);
  });
});

describe('a large batch of logs', () => {
  it('does not hold /healthz while the dispatcher stores 17,000 records of a 4 MiB item (it took 2.7 s)', async () => {
    const marker = `big-batch-${randomUUID().slice(0, 8)}`;
    const count = 17_000;
    const items = Array.from({ length: count }, (_, i) => ({
      body: `${marker} ${i}`,
      level: 'info',
      timestamp: Date.now() / 1000,
      trace_id: 'a'.repeat(32),
      attributes: { k: { type: 'string', value: `v${i}` }, n: { type: 'integer', value: i } },
    }));
    const body = gzipSync(`{}\n{"type":"log","item_count":${count}}\n${JSON.stringify({ items })}\n`);
    const processed = () => metricTotal(server, 'errata_pipeline_processed_total', { category: 'log_item' });
    const before = await processed();
    expect((await post(body, { 'content-encoding': 'gzip' })).status).toBe(200);
    let checks = 0;
    while ((await processed()) - before < count) {
      expect(await healthzWithin(1000)).toBe(200);
      checks += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(checks).toBeGreaterThan(0);
  });
});

describe('the envelope header sdk', () => {
  it('carries a 512 KiB sdk as a few bytes, once, not once per item', async () => {
    const marker = `big-sdk-${randomUUID().slice(0, 8)}`;
    const sdk = { name: 'sentry.hostile', version: '1.0.0', settings: 'x'.repeat(512 * 1024) };
    const header = JSON.stringify({ event_id: id(), sdk });
    const records = logItems(100, `{"items":[{"body":"${marker}","level":"info"}]}`);
    const body = gzipSync(`${header}\n${records}{"type":"event"}\n{"message":"${marker}"}\n`);
    expect(body.length).toBeLessThan(20_000);
    const before = await queuedBytes();
    expect((await post(body, { 'content-encoding': 'gzip' })).status).toBe(200);
    // 101 records of a few hundred bytes each; the 512 KiB value went nowhere (before: 50 MiB).
    const written = (await queuedBytes()) - before;
    expect(written).toBeGreaterThan(100 * 100);
    expect(written).toBeLessThan(100 * 1024);
    const issue = await waitForIssue(server, p, marker);
    const event = await waitForLatestEvent<{ payload: { sdk?: { name?: string } } }>(server, p, issue.shortId);
    expect(event.payload.sdk).toEqual({ name: 'sentry.hostile', version: '1.0.0' });
    expect(await waitForLogs(server, p, `query=${marker}&limit=100`, 100)).toHaveLength(100);
  });

  it('refuses headers past 1 MiB together with 400, before scanning a 100 MiB one from 100 KB of gzip', async () => {
    const header = `{"event_id":"${id()}","sdk":{"name":"x","settings":"${'x'.repeat(99 * 1024 * 1024)}"}}`;
    const body = gzipSync(`${header}\n{"type":"event"}\n{"message":"too big a header"}\n`);
    const invalid = await metricTotal(server, 'errata_outcomes_total', { reason: 'invalid_envelope' });
    const response = await post(body, { 'content-encoding': 'gzip' });
    expect(response.status).toBe(400);
    expect((response.json().error as { message: string }).message).toMatch(
      /^envelope header takes the envelope's headers past 1048576 bytes together: .*data belongs in an item$/,
    );
    expect(await metricTotal(server, 'errata_outcomes_total', { reason: 'invalid_envelope' })).toBe(invalid + 1);
  });

  it('refuses an envelope header nested 50,000 levels deep with 400 (was 500), and keeps serving', async () => {
    const marker = `deep-sdk-${randomUUID().slice(0, 8)}`;
    const header = `{"event_id":"${id()}","sdk":${nested(50_000, '{"name":', '}', '"x"')}}`;
    const invalid = await metricTotal(server, 'errata_outcomes_total', { reason: 'invalid_envelope' });
    const response = await post(`${header}\n{"type":"event"}\n{"message":"${marker}"}\n`);
    expect(response.status).toBe(400);
    expect((response.json().error as { message: string }).message).toBe(
      'envelope header nests deeper than 128 levels: headers hold a few flat fields (event_id, dsn, sdk, type, length)',
    );
    expect(await metricTotal(server, 'errata_outcomes_total', { reason: 'invalid_envelope' })).toBe(invalid + 1);
    expect(await healthzWithin(1000)).toBe(200);
  });
});

describe('deep JSON inside accepted items', () => {
  it('keeps a log record with a 20,000-deep attribute and both of its neighbours (the container vanished)', async () => {
    const marker = `deep-log-${randomUUID().slice(0, 8)}`;
    const deep = nested(20_000, '{"a":', '}');
    const payload =
      `{"items":[{"body":"${marker} before","level":"info"},` +
      `{"body":"${marker} deep","level":"info","attributes":{"tree":{"value":${deep},"type":"object"}}},` +
      `{"body":"${marker} after","level":"info"}]}`;
    expect((await post(`{}\n{"type":"log","item_count":3}\n${payload}\n`)).status).toBe(200);
    const logs = await waitForLogs(server, p, `query=${marker}`, 3);
    expect(logs.map((log) => log.body).sort()).toEqual([`${marker} after`, `${marker} before`, `${marker} deep`]);
  });

  it('stores an event whose message params nest 50,000 levels deep (it was accepted and never stored)', async () => {
    const marker = `deep-params-${randomUUID().slice(0, 8)}`;
    const event = `{"event_id":"${id()}","logentry":{"message":"${marker} %s","params":[${nested(50_000, '[', ']')}]}}`;
    expect((await post(`{}\n{"type":"event"}\n${event}\n`)).status).toBe(200);
    const issue = await waitForIssue(server, p, marker);
    const latest = await waitForLatestEvent<{ payload: { logentry: { formatted: string } } }>(server, p, issue.shortId);
    expect(latest.payload.logentry.formatted).toMatch(new RegExp(`^${marker} \\[\\[\\[`));
  });
});

describe('a compression bomb without a key in the request', () => {
  const brotli = (data: Buffer) => brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  const bareUrl = () => `${server.url}/api/${p.projectId}/envelope/`;

  it('is refused on the key in its header before the rest is inflated', async () => {
    const header = Buffer.from(`{"dsn":"http://unknownkey0000000@127.0.0.1/${p.projectId}"}\n`);
    const bomb = brotli(Buffer.concat([header, Buffer.alloc(100 * 1024 * 1024)]));
    expect(bomb.length).toBeLessThan(1024);
    const response = await post(bomb, { 'content-encoding': 'br' }, bareUrl());
    expect(response.status).toBe(403);
    expect((response.json().error as { message: string }).message).toMatch(/unknown DSN public key/);
  });

  it('is stopped by the compression ratio when its key is good', async () => {
    const header = Buffer.from(`{"dsn":"${p.dsn}"}\n{"type":"attachment"}\n`);
    const bomb = brotli(Buffer.concat([header, Buffer.alloc(100 * 1024 * 1024)]));
    const response = await post(bomb, { 'content-encoding': 'br' }, bareUrl());
    expect(response.status).toBe(413);
    expect((response.json().error as { message: string }).message).toMatch(/ERRATA_MAX_COMPRESSION_RATIO/);
  });

  it('still takes an ordinary envelope whose only key is in its header', async () => {
    const marker = `header-key-${randomUUID().slice(0, 8)}`;
    const body = eventEnvelope({ event_id: id(), message: marker }, { header: { dsn: p.dsn } });
    expect((await post(brotli(Buffer.from(body)), { 'content-encoding': 'br' }, bareUrl())).status).toBe(200);
    await waitForIssue(server, p, marker);
  });
});
