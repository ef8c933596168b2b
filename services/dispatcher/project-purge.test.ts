// The purge of deleted projects on real stores (PGlite, a directory of blobs): nothing until
// LATE_EVENTS_MS after the delete, then the project's events (late ones too), logs, counted event
// ids and files, and nothing of another project.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../test/fixtures/new-event.ts';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { occurrenceMaker, unique } from '../adapters/contracts/metadata-fixtures.ts';
import { openFsBlobStore, type FsBlobStore } from '../adapters/fs-blobs/fs-blob-store.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { LogRecord } from '../core/logs/log-record.ts';
import type { Project } from '../core/ports/tenancy-store.ts';
import { createLogger } from '../runtime/logger.ts';
import { purgeDeletedProjects } from './project-purge.ts';
import { LATE_EVENTS_MS } from './retention.ts';

let stores: EmbeddedStores;
let blobs: FsBlobStore;
let dir: string;
beforeAll(async () => {
  stores = await openEmbeddedStores();
  dir = await mkdtemp(join(tmpdir(), 'errata-purge-'));
  blobs = await openFsBlobStore(dir);
});
afterAll(async () => {
  await stores.close();
  await rm(dir, { recursive: true, force: true });
});

const NOW = 1_900_000_000_000;
const logger = createLogger('silent');
const occurrence = occurrenceMaker();

async function project(slug: string): Promise<Project> {
  const org = await stores.metadata.ensureOrganization(`purge-${unique()}`, 'Purge');
  const created = await stores.metadata.createProject(
    { organizationId: org.id, slug, name: slug },
    { publicKey: unique() + unique(), label: 'Default' },
  );
  return created.project;
}

/** An event counted and stored, as the event pipeline does it; its id. */
async function storedEvent(of: Project): Promise<string> {
  const [result] = await stores.metadata.recordOccurrences([occurrence(of)]);
  await stores.events.insertEvents([
    newEvent(stores.events, { projectId: of.id, eventId: result!.eventId, issueId: result!.issueId, timestamp: NOW / 1000 }),
  ]);
  return result!.eventId;
}

function log(of: Project, body: string): LogRecord {
  const timestamp = NOW / 1000;
  return {
    id: unique(),
    projectId: of.id,
    timestamp,
    observedAt: timestamp,
    traceId: null,
    spanId: null,
    level: 'info',
    severityNumber: 9,
    body,
    attributes: {},
    release: null,
    environment: null,
  };
}

async function countedIds(of: Project): Promise<number> {
  const result = await stores.client.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM processed_events WHERE project_id = $1',
    [of.id],
  );
  return result.rows[0]!.n;
}

const fileKeys = async (of: Project) => (await blobs.list(`projects/${of.id}/`)).items.map((blob) => blob.key);

describe('purging deleted projects', () => {
  it("erases a deleted project's events, logs, counted ids and files once ten minutes have passed, and nothing of another project", async () => {
    const [doomed, kept] = [await project('doomed'), await project('kept')];
    const doomedEvent = await storedEvent(doomed);
    const keptEvent = await storedEvent(kept);
    await stores.logs.insertLogs([log(doomed, 'doomed line'), log(kept, 'kept line')]);
    for (const of of [doomed, kept]) await blobs.put(`projects/${of.id}/maps/${unique()}/minified.gz`, Buffer.from('x'));
    // More files than one listing's page, so that the purge goes on past the first.
    for (let i = 0; i < 1005; i++) await blobs.put(`projects/${doomed.id}/maps/many/f${i}.gz`, Buffer.from('x'));
    await stores.metadata.deleteProject(doomed.id, new Date(NOW));

    const deps = { metadata: stores.metadata, events: stores.events, logs: stores.logs, blobs, logger };
    expect(await purgeDeletedProjects({ ...deps, now: () => NOW + LATE_EVENTS_MS - 1 })).toEqual([]);
    expect(await stores.events.getEvent(doomed.id, doomedEvent)).toBeDefined();
    // A batch that counted an event just before the delete stores it after.
    const late = newEvent(stores.events, { projectId: doomed.id, eventId: 'f'.repeat(32), issueId: 1, timestamp: NOW / 1000 });
    await stores.events.insertEvents([late]);

    const purged = await purgeDeletedProjects({ ...deps, now: () => NOW + LATE_EVENTS_MS + 1 });
    expect(purged.map((p) => [p.projectId, p.slug])).toEqual([[doomed.id, 'doomed']]);
    expect(await stores.events.getEvent(doomed.id, doomedEvent)).toBeUndefined();
    expect(await stores.events.getEvent(doomed.id, late.eventId)).toBeUndefined();
    expect((await stores.logs.searchLogs({ projectId: doomed.id, limit: 10 })).items).toEqual([]);
    expect(await countedIds(doomed)).toBe(0);
    expect(await fileKeys(doomed)).toEqual([]);
    expect(await stores.metadata.listDeletedProjects(new Date(NOW + LATE_EVENTS_MS + 1), 10)).toEqual([]);

    expect(await stores.events.getEvent(kept.id, keptEvent)).toBeDefined();
    expect((await stores.logs.searchLogs({ projectId: kept.id, limit: 10 })).items.map((l) => l.body)).toEqual(['kept line']);
    expect(await countedIds(kept)).toBe(1);
    expect(await fileKeys(kept)).toHaveLength(1);
    expect(await purgeDeletedProjects({ ...deps, now: () => NOW + LATE_EVENTS_MS + 2 })).toEqual([]);
  });

  it('keeps a project whose purge failed recorded, purges the others, and finishes it at the next pass', async () => {
    const [first, second] = [await project('first'), await project('second')];
    await stores.logs.insertLogs([log(first, 'first line'), log(second, 'second line')]);
    for (const of of [first, second]) {
      await blobs.put(`projects/${of.id}/maps/a/minified.gz`, Buffer.from('x'));
      await stores.metadata.deleteProject(of.id, new Date(NOW));
    }
    // The blob store fails once, for the first project's files.
    let failures = 1;
    const failingOnce: BlobStore = Object.assign(Object.create(blobs) as BlobStore, {
      deleteMany: async (keys: readonly string[]) => {
        if (failures-- > 0) throw new Error('blob store unreachable');
        await blobs.deleteMany(keys);
      },
    });
    const deps = { metadata: stores.metadata, events: stores.events, logs: stores.logs, blobs: failingOnce, logger };
    const after = () => NOW + LATE_EVENTS_MS + 1;
    await expect(purgeDeletedProjects({ ...deps, now: after })).rejects.toThrow('blob store unreachable');
    expect(await fileKeys(first)).toHaveLength(1);
    expect(await fileKeys(second)).toEqual([]);
    expect((await stores.metadata.listDeletedProjects(new Date(after()), 10)).map((p) => p.projectId)).toEqual([first.id]);

    expect((await purgeDeletedProjects({ ...deps, now: after })).map((p) => p.projectId)).toEqual([first.id]);
    expect(await fileKeys(first)).toEqual([]);
    expect((await stores.logs.searchLogs({ projectId: first.id, limit: 10 })).items).toEqual([]);
  });
});
