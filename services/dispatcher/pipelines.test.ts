import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedItems } from '../../test/fixtures/sdk-fixtures.ts';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { failBlockingWrites } from '../../test/support/replaced-syncs.ts';
import { erasePendingPayloads } from '../adapters/postgres/payload-erasures.ts';
import { PayloadSegments } from '../adapters/postgres/payload-segments.ts';
import { PgEventStore } from '../adapters/postgres/pg-event-store.ts';
import { UnavailableError } from '../core/errors.ts';
import { triageIssues } from '../core/issues/triage.ts';
import { encodeQueuedItem, type QueuedItemHeader } from '../core/pipeline/queued-item.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { BatchHandler, DeliveredRecord } from '../core/ports/queue.ts';
import { createLogger } from '../runtime/logger.ts';
import { createMetrics, outcomeRecorder } from '../runtime/metrics.ts';
import { eventPipeline } from './event-pipeline.ts';
import { isolateFailures } from './isolate-failures.ts';
import { logPipeline } from './log-pipeline.ts';

let stores: EmbeddedStores;
let projectId: number;
let otherProjectId: number;
let organizationId: number;
const metrics = createMetrics({ processMetrics: false });
const logger = createLogger('silent');

beforeAll(async () => {
  stores = await openEmbeddedStores();
  const org = await stores.metadata.ensureOrganization('default', 'Default');
  organizationId = org.id;
  const { project } = await stores.metadata.createProject(
    { organizationId: org.id, slug: 'shop', name: 'Shop' },
    { publicKey: 'k'.repeat(32), label: 'Default' },
  );
  projectId = project.id;
  // A second project of the same organization, created with the first so that no test leaves one behind.
  const { project: other } = await stores.metadata.createProject(
    { organizationId: org.id, slug: 'other-shop', name: 'Other shop' },
    { publicKey: 'o'.repeat(32), label: 'Default' },
  );
  otherProjectId = other.id;
});
afterAll(() => stores.close());

const RECEIVED_AT = Date.UTC(2026, 10, 21, 22) / 1000;
let offset = 0;
function record(
  kind: 'event' | 'log',
  id: string,
  payload: Buffer | string,
  itemCount?: number,
  project = projectId,
): DeliveredRecord {
  const header: QueuedItemHeader = {
    v: 1,
    kind,
    id,
    projectId: project,
    organizationId,
    receivedAt: RECEIVED_AT,
    ...(itemCount === undefined ? {} : { itemCount }),
  };
  offset += 1;
  return {
    topic: kind,
    partition: 0,
    offset: String(offset),
    key: id,
    value: encodeQueuedItem({ header, payload: Buffer.from(payload) }),
  };
}

async function outcome(reason: string, category: string): Promise<number> {
  const metric = await metrics.outcomes.get();
  return metric.values.find((v) => v.labels.reason === reason && v.labels.category === category)?.value ?? 0;
}

/** Items stored, of one category: in all, or of one project (counted per project). */
async function processed(category: string, project?: number): Promise<number> {
  const metric = await metrics.pipelineProcessed.get();
  return metric.values
    .filter((v) => v.labels.category === category && (project === undefined || v.labels.project_id === String(project)))
    .reduce((sum, v) => sum + v.value, 0);
}

async function eventAges(): Promise<{ count: number; sum: number }> {
  const metric = await metrics.pipelineEventAge.get();
  const value = (name: string) => metric.values.find((v) => v.metricName === name)?.value ?? 0;
  return { count: value('errata_pipeline_event_age_seconds_count'), sum: value('errata_pipeline_event_age_seconds_sum') };
}

describe('event pipeline', () => {
  let events: BatchHandler;
  beforeAll(() => {
    events = eventPipeline({
      metadata: stores.metadata,
      events: stores.events,
      outcomes: outcomeRecorder(metrics, 'dispatcher'),
      metrics,
      logger,
    });
  });

  it('drops the events of a project deleted after ingest accepted them, counting them as project_missing', async () => {
    const { project: doomed } = await stores.metadata.createProject(
      { organizationId, slug: 'doomed-events', name: 'Doomed' },
      { publicKey: 'e'.repeat(32), label: 'Default' },
    );
    await stores.metadata.deleteProject(doomed.id, new Date());
    const before = await outcome('project_missing', 'error');
    const id = '9'.repeat(32);
    await events([record('event', id, '{"message": "after the delete"}', undefined, doomed.id)]);
    expect(await outcome('project_missing', 'error')).toBe(before + 1);
    expect(await stores.events.getEvent(doomed.id, id)).toBeUndefined();
  });

  it('turns real SDK events into grouped issues and stored events', async () => {
    const fixtures = capturedItems('event').filter((e) =>
      ['python-gzip-exception-001', 'python-br-exception-001', 'go-panic-001'].includes(e.request),
    );
    const batch = fixtures.map((f, i) => record('event', `${String(i + 1).padStart(32, 'a')}`, JSON.stringify(f.payload)));
    const agesBefore = await eventAges();
    const ageAtStart = Math.max(0, Date.now() / 1000 - RECEIVED_AT);
    await events(batch);
    const ages = await eventAges();
    expect(ages.count - agesBefore.count).toBe(3);
    expect(ages.sum - agesBefore.sum).toBeGreaterThanOrEqual(3 * ageAtStart);
    expect(ages.sum - agesBefore.sum).toBeLessThan(3 * (ageAtStart + 60));
    const { items } = await stores.metadata.listIssues({ projectId, limit: 10 });
    expect(items.map((i) => [i.title, i.count]).sort()).toEqual([
      ["KeyError: 'Order 1001 has no items'", 2],
      ['runtime.boundsError: runtime error: index out of range [3] with length 0', 1],
    ]);
    const keyError = items.find((i) => i.title.startsWith('KeyError'))!;
    expect(keyError).toMatchObject({
      culprit: '__main__ in parse_order',
      shortId: expect.stringMatching(/^SHOP-\d$/),
      userCount: 1,
      environments: ['fixture'],
    });
    const latest = await stores.events.latestEventForIssue(projectId, keyError.id);
    expect(latest?.payload.exception?.values.at(-1)?.type).toBe('KeyError');
    expect(latest?.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('counts nothing twice when a batch is delivered again', async () => {
    const [fixture] = capturedItems('event', 'node').filter((e) => e.request === 'node-exception-002');
    const batch = [
      record('event', 'b'.repeat(32), JSON.stringify(fixture!.payload)),
      record('event', 'c'.repeat(32), JSON.stringify(fixture!.payload)),
    ];
    await events(batch);
    const issue = (await stores.metadata.listIssues({ projectId, limit: 10, text: 'Order 1001 has no items' })).items.find((i) =>
      i.title.startsWith('TypeError'),
    )!;
    expect(issue.count).toBe(2);
    await events(batch);
    await events([batch[0]!]);
    expect((await stores.metadata.getIssue(issue.id))?.count).toBe(2);
    expect(await stores.events.countEventsForIssue(projectId, issue.id)).toBe(2);
  });

  it('does not bring back a deleted issue when a batch of its events is delivered again', async () => {
    const id = 'a1'.repeat(16);
    const batch = [record('event', id, '{"message": "deleted, then redelivered"}')];
    await events(batch);
    const [issue] = (await stores.metadata.listIssues({ projectId, limit: 10, text: 'then redelivered' })).items;
    await triageIssues(stores, projectId, [issue!], { action: 'delete' }, { kind: 'agent', name: 'tok' }, new Date());
    const dropped = await outcome('issue_deleted', 'error');
    // A batch retried, or read again from the queue after a rebalance.
    await events(batch);
    expect((await stores.metadata.listIssues({ projectId, limit: 10, text: 'then redelivered' })).items).toEqual([]);
    expect(await stores.events.getEvent(projectId, id)).toBeUndefined();
    expect(await outcome('issue_deleted', 'error')).toBe(dropped + 1);
  });

  it('stores events carrying NUL characters and lone surrogates, which Postgres cannot hold as sent', async () => {
    const odd = 'bad \u0000 byte and \ud800 half';
    const raw = {
      message: `Odd ${odd}`,
      exception: [{ type: 'Weird\u0000Error', value: odd }],
      tags: { odd },
      extra: { [`key\u0000`]: odd },
      user: { id: odd },
    };
    await events([record('event', 'f'.repeat(31) + '0', JSON.stringify(raw))]);
    const issue = (await stores.metadata.listIssues({ projectId, limit: 10, text: 'byte and' })).items[0];
    expect(issue?.title).toBe('Weird\uFFFDError: bad \uFFFD byte and \uFFFD half');
    expect(issue?.userCount).toBe(1);
  });

  it('drops unreadable payloads with a counted reason and keeps the rest of the batch', async () => {
    const before = await outcome('invalid_json', 'error');
    await events([record('event', 'd'.repeat(32), '{"message": "fine"}'), record('event', 'e'.repeat(32), '{not json')]);
    expect(await outcome('invalid_json', 'error')).toBe(before + 1);
    expect((await stores.metadata.listIssues({ projectId, limit: 10, text: 'fine' })).items).toHaveLength(1);
  });

  it('counts the second copy of an event id in one batch as a duplicate', async () => {
    const [stored, duplicates] = [await processed('error'), await outcome('duplicate', 'error')];
    const storedInProject = await processed('error', projectId);
    const id = '9'.repeat(32);
    await events([
      record('event', id, '{"message": "twice in a batch"}'),
      record('event', id, '{"message": "twice in a batch"}'),
    ]);
    expect(await processed('error')).toBe(stored + 1);
    expect(await processed('error', projectId)).toBe(storedInProject + 1);
    expect(await outcome('duplicate', 'error')).toBe(duplicates + 1);
  });

  it('lets go of the payload copies it does not store, where payloads are kept in files', async () => {
    // The standalone server's store: payloads in segment files, each copy listed for erasure
    // when no row refers to it, as a deleted event's is.
    const dir = await mkdtemp(join(tmpdir(), 'errata-pipeline-segments-'));
    const segments = await PayloadSegments.open(join(dir, 'payloads'), { mode: 'writer' });
    try {
      const store = new PgEventStore(stores.client, segments);
      const pipeline = eventPipeline({
        metadata: stores.metadata,
        events: store,
        outcomes: outcomeRecorder(metrics, 'dispatcher'),
        metrics,
        logger,
      });
      const listed = async () => (await stores.client.query('SELECT reference FROM payload_erasures')).rows.length;
      const id = '8'.repeat(32);
      const batch = [record('event', id, '{"message": "kept in a file"}'), record('event', id, '{"message": "kept in a file"}')];
      await pipeline(batch); // the second copy in the batch is not stored
      expect(await listed()).toBe(1);
      await pipeline(batch); // delivered again: both copies are of an event stored before
      expect(await listed()).toBe(3);
      expect(await erasePendingPayloads(stores.client, segments)).toEqual({ overwritten: 3, gone: 0, failed: [] });
      expect((await store.getEvent(projectId, id))?.payload.logentry?.formatted).toBe('kept in a file');

      // A batch that fails before its events are stored goes again with copies of its own.
      const failingOnce = eventPipeline({
        metadata: Object.assign(Object.create(stores.metadata) as typeof stores.metadata, {
          recordOccurrences: () => Promise.reject(new Error('the database went away')),
        }),
        events: store,
        outcomes: outcomeRecorder(metrics, 'dispatcher'),
        metrics,
        logger,
      });
      const failed = [record('event', '7'.repeat(32), '{"message": "its batch failed"}')];
      await expect(failingOnce(failed)).rejects.toThrow(/went away/);
      expect(await listed()).toBe(1);
      await pipeline(failed);
      expect(await erasePendingPayloads(stores.client, segments)).toEqual({ overwritten: 1, gone: 0, failed: [] });
      expect((await store.getEvent(projectId, '7'.repeat(32)))?.payload.logentry?.formatted).toBe('its batch failed');

      // One that fails partway through preparing (the second project's grouping rules could not
      // be read) lets go of the copies made before it.
      const failingPartway = eventPipeline({
        metadata: Object.assign(Object.create(stores.metadata) as typeof stores.metadata, {
          getGroupingRules: (id: number) =>
            id === otherProjectId
              ? Promise.reject(new Error('the rules could not be read'))
              : stores.metadata.getGroupingRules(id),
        }),
        events: store,
        outcomes: outcomeRecorder(metrics, 'dispatcher'),
        metrics,
        logger,
      });
      const partway = [
        record('event', '6'.repeat(32), '{"message": "prepared before the failure"}'),
        record('event', '5'.repeat(32), '{"message": "in the other project"}', undefined, otherProjectId),
      ];
      await expect(failingPartway(partway)).rejects.toThrow(/could not be read/);
      expect(await listed()).toBe(1);
      await pipeline(partway);
      expect(await erasePendingPayloads(stores.client, segments)).toEqual({ overwritten: 1, gone: 0, failed: [] });
      expect((await store.getEvent(projectId, '6'.repeat(32)))?.payload.logentry?.formatted).toBe('prepared before the failure');
      expect((await store.getEvent(otherProjectId, '5'.repeat(32)))?.payload.logentry?.formatted).toBe('in the other project');
    } finally {
      segments.close();
      await rm(dir, { recursive: true, force: true });
      // Its row refers to a file now gone, which a later read through the shared store would not find.
      const stored = ['8', '7', '6', '5'].map((c) => c.repeat(32));
      await stores.client.query('DELETE FROM events WHERE event_id = ANY($1::text[])', [stored]);
    }
  });

  it('gives a batch whose payloads could not be written (a full disk) back to the queue, never passing it over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'errata-pipeline-full-disk-'));
    const segments = await PayloadSegments.open(join(dir, 'payloads'), { mode: 'writer' });
    const id = '4'.repeat(32);
    try {
      const store = new PgEventStore(stores.client, segments);
      const outcomes = outcomeRecorder(metrics, 'dispatcher');
      // As the dispatcher runs it (workers.ts): a record that fails alone while the stores answer is passed over.
      const handler = isolateFailures(eventPipeline({ metadata: stores.metadata, events: store, outcomes, metrics, logger }), {
        category: 'error',
        storesAnswer: async () => {
          await stores.metadata.ping();
          await store.ping();
        },
        outcomes,
        logger,
        backoffMs: 1,
      });
      const passedOver = await outcome('processing_failed', 'error');
      const batch = [record('event', id, '{"message": "stored once the disk has room"}')];
      const restore = failBlockingWrites(join(dir, 'payloads'));
      try {
        await expect(handler(batch)).rejects.toThrow(UnavailableError);
      } finally {
        restore();
      }
      expect(await outcome('processing_failed', 'error')).toBe(passedOver);
      await handler(batch); // the queue's next delivery of the batch
      expect((await store.getEvent(projectId, id))?.payload.logentry?.formatted).toBe('stored once the disk has room');
    } finally {
      segments.close();
      await rm(dir, { recursive: true, force: true });
      await stores.client.query('DELETE FROM events WHERE event_id = $1', [id]);
    }
  });
});

/** The real log store behind a port whose writes go through `insertLogs` first. */
function withInsert(insertLogs: LogStore['insertLogs']): LogStore {
  return {
    insertLogs,
    searchLogs: (query) => stores.logs.searchLogs(query),
    logVolume: (filter, bucketSeconds) => stores.logs.logVolume(filter, bucketSeconds),
    deleteLogsBefore: (cutoff) => stores.logs.deleteLogsBefore(cutoff),
    deleteLogsOfProject: (projectId) => stores.logs.deleteLogsOfProject(projectId),
    ping: () => stores.logs.ping(),
  };
}

describe('log pipeline', () => {
  let logs: BatchHandler;
  beforeAll(() => {
    logs = logPipeline({
      logs: stores.logs,
      metadata: stores.metadata,
      outcomes: outcomeRecorder(metrics, 'dispatcher'),
      metrics,
      logger,
    });
  });

  it('stores the logs of every SDK with levels, severities, traces and typed attributes', async () => {
    const containers = capturedItems('log');
    expect(new Set(containers.map((c) => c.sdk))).toEqual(new Set(['browser', 'go', 'node', 'python']));
    await logs(containers.map((c, i) => record('log', `container${i}`, JSON.stringify(c.payload))));
    const expected = containers.reduce((sum, c) => sum + (c.payload as { items: unknown[] }).items.length, 0);
    const stored = await stores.logs.searchLogs({ projectId, limit: 100 });
    expect(stored.items).toHaveLength(expected);
    for (const log of stored.items) {
      expect(log.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(log.severityNumber).toBeGreaterThan(0);
      expect(log.release).toBe('errata-fixtures@1.2.3');
      expect(log.environment).toBe('fixture');
    }
    // Python puts severity only in an attribute; Go sends RFC 3339 timestamps.
    const levels = new Set(stored.items.map((l) => l.level));
    expect([...levels].every((l) => ['trace', 'debug', 'info', 'warn', 'error', 'fatal'].includes(l))).toBe(true);
    expect(levels.has('warn')).toBe(true);
    expect(levels.has('error')).toBe(true);
  });

  it('stores odd text and replaces implausible timestamps with the time received', async () => {
    const payload = JSON.stringify({
      items: [
        {
          timestamp: 1e15,
          level: 'info',
          body: 'far \u0000 future',
          trace_id: 'e'.repeat(32),
          attributes: { 'k\u0000': { type: 'string', value: 'v\ud800' } },
        },
        { timestamp: 9e12, level: 'info', body: 'also far future', trace_id: 'e'.repeat(32) },
      ],
    });
    await logs([record('log', 'odd-container', payload)]);
    const stored = (await stores.logs.searchLogs({ projectId, limit: 10, text: 'far' })).items;
    expect(stored.map((l) => l.body).sort()).toEqual(['also far future', 'far \uFFFD future']);
    expect(stored.every((l) => l.timestamp === Date.UTC(2026, 10, 21, 22) / 1000)).toBe(true);
    expect(stored.find((l) => l.body.startsWith('far'))?.attributes['k\uFFFD']).toEqual({ type: 'string', value: 'v\uFFFD' });
  });

  it('is idempotent per container and counts records it cannot read', async () => {
    const payload = JSON.stringify({
      items: [{ timestamp: 1_800_000_000, level: 'info', body: 'once', trace_id: 'f'.repeat(32) }, { level: 'info' }],
    });
    const before = await outcome('invalid_log', 'log_item');
    await logs([record('log', 'same-container', payload)]);
    await logs([record('log', 'same-container', payload)]);
    expect((await stores.logs.searchLogs({ projectId, limit: 10, text: 'once' })).items).toHaveLength(1);
    expect(await outcome('invalid_log', 'log_item')).toBe(before + 2);
  });

  it('drops the logs of a project deleted after ingest accepted them, counting them as project_missing', async () => {
    const { project: doomed } = await stores.metadata.createProject(
      { organizationId, slug: 'doomed-logs', name: 'Doomed' },
      { publicKey: 'd'.repeat(32), label: 'Default' },
    );
    await stores.metadata.deleteProject(doomed.id, new Date());
    const payload = (body: string) =>
      JSON.stringify({
        items: [
          { timestamp: 1_800_000_000, level: 'info', body },
          { level: 'info', body },
        ],
      });
    const before = await outcome('project_missing', 'log_item');
    await logs([
      record('log', 'of-deleted', payload('after the delete'), 2, doomed.id),
      record('log', 'of-live', payload('still here'), 2),
    ]);
    expect((await stores.logs.searchLogs({ projectId: doomed.id, limit: 10 })).items).toEqual([]);
    expect(await outcome('project_missing', 'log_item')).toBe(before + 2);
    expect((await stores.logs.searchLogs({ projectId, limit: 10, text: 'still here' })).items).toHaveLength(2);
  });

  it('accounts for every record a container declared: stored, or counted with a reason', async () => {
    const counts = async () => ({
      stored: await processed('log_item'),
      invalid: (await outcome('invalid_log', 'log_item')) + (await outcome('invalid_json', 'log_item')),
      undeclared: await outcome('undeclared_record', 'log_item'),
    });
    const before = await counts();
    await logs([
      // Declares 4, holds 1: three counted as invalid.
      record('log', 'short-container', '{"items":[{"body":"short"}]}', 4),
      // Declares 6 and is not JSON: all six counted.
      record('log', 'broken-container', '{"items":[', 6),
      // Declares 1, holds 3: the two beyond it were never accepted, and are counted apart.
      record('log', 'long-container', '{"items":[{"body":"long"},{"body":"x"},{"body":"y"}]}', 1),
    ]);
    const after = await counts();
    expect(after.stored - before.stored).toBe(2);
    expect(after.invalid - before.invalid).toBe(3 + 6);
    expect(after.undeclared - before.undeclared).toBe(2);
  });

  it('stores a record whose attribute declares a type that is no word (a lone surrogate made the batch unstorable)', async () => {
    const payload = JSON.stringify({
      items: [{ body: 'odd type', attributes: { a: { type: '\ud800', value: [1, 2] }, b: { type: 'x y', value: 'z' } } }],
    });
    await logs([record('log', 'odd-type-container', payload, 1)]);
    const [stored] = (await stores.logs.searchLogs({ projectId, limit: 10, text: 'odd type' })).items;
    expect(stored?.attributes).toEqual({ a: { type: 'array', value: [1, 2] }, b: { type: 'string', value: 'z' } });
  });

  it('counts a batch once when it failed and ran again record by record', async () => {
    let failures = 1;
    // The real store behind a port whose first write fails.
    const failingOnce = withInsert(async (rows) => {
      if (failures-- > 0) throw new Error('the first write fails');
      return stores.logs.insertLogs(rows);
    });
    const isolated = isolateFailures(
      logPipeline({
        logs: failingOnce,
        metadata: stores.metadata,
        outcomes: outcomeRecorder(metrics, 'dispatcher'),
        metrics,
        logger,
      }),
      {
        category: 'log_item',
        storesAnswer: async () => {},
        outcomes: outcomeRecorder(metrics, 'dispatcher'),
        logger,
        backoffMs: 1,
      },
    );
    const [stored, invalid] = [await processed('log_item'), await outcome('invalid_log', 'log_item')];
    const storedInProject = await processed('log_item', projectId);
    await isolated([
      record('log', 'retried-a', '{"items":[{"body":"retried a"},{"level":"info"},{"level":"info"}]}', 3),
      record('log', 'retried-b', '{"items":[{"body":"retried b"}]}', 1),
    ]);
    expect(await processed('log_item')).toBe(stored + 2);
    expect(await processed('log_item', projectId)).toBe(storedInProject + 2);
    expect(await outcome('invalid_log', 'log_item')).toBe(invalid + 2);
  });

  it('writes a batch of large containers in parts, never holding all its rows at once', async () => {
    // Two containers of 60,000 records: written after each (50,000 gathered), at most 50,000 a
    // write, not as one write of 120,000 at the end. A batch of 12 MB may hold a million small records.
    const writes: number[] = [];
    const observed = withInsert((rows) => (writes.push(rows.length), stores.logs.insertLogs(rows)));
    const before = await processed('log_item');
    const container = `{"items":[${Array.from({ length: 60_000 }, () => '{"body":"b"}').join(',')}]}`;
    await logPipeline({
      logs: observed,
      metadata: stores.metadata,
      outcomes: outcomeRecorder(metrics, 'dispatcher'),
      metrics,
      logger,
    })([record('log', 'part-a', container, 60_000), record('log', 'part-b', container, 60_000)]);
    expect(writes).toEqual([50_000, 10_000, 50_000, 10_000]);
    expect((await processed('log_item')) - before).toBe(120_000);
  }, 120_000);

  it('counts a batch written in parts once when a later part failed and it ran again', async () => {
    let calls = 0;
    const secondFailsOnce = withInsert(async (rows) => {
      if (++calls === 2) throw new Error('the second write fails');
      return stores.logs.insertLogs(rows);
    });
    const isolated = isolateFailures(
      logPipeline({
        logs: secondFailsOnce,
        metadata: stores.metadata,
        outcomes: outcomeRecorder(metrics, 'dispatcher'),
        metrics,
        logger,
      }),
      {
        category: 'log_item',
        storesAnswer: async () => {},
        outcomes: outcomeRecorder(metrics, 'dispatcher'),
        logger,
        backoffMs: 1,
      },
    );
    const before = await processed('log_item');
    const container = `{"items":[${Array.from({ length: 60_000 }, () => '{"body":"c"}').join(',')}]}`;
    await isolated([record('log', 'again-a', container, 60_000), record('log', 'again-b', container, 60_000)]);
    expect(calls).toBeGreaterThan(2);
    expect((await processed('log_item')) - before).toBe(120_000);
  }, 120_000);

  it('stores a container of 200,000 small records, as many as a 4 MiB log item holds', async () => {
    const before = await processed('log_item');
    const items = Array.from({ length: 200_000 }, () => '{"body":"a"}').join(',');
    await logs([record('log', 'many-records', `{"items":[${items}]}`, 200_000)]);
    expect((await processed('log_item')) - before).toBe(200_000);
  }, 120_000);
});
