import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../test/fixtures/new-event.ts';
import { openFsBlobStore } from '../adapters/fs-blobs/fs-blob-store.ts';
import { PayloadSegments } from '../adapters/postgres/payload-segments.ts';
import { PgEventStore } from '../adapters/postgres/pg-event-store.ts';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { createLogger } from '../runtime/logger.ts';
import { occurrenceMaker } from '../adapters/contracts/metadata-fixtures.ts';
import { triageIssues } from '../core/issues/triage.ts';
import { pruneExpired } from './retention.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

const DAY = 86_400;
const NOW = 1_900_000_000;

describe('retention', () => {
  it('deletes events and logs older than the retention period and keeps the rest', async () => {
    const event = (id: string, age: number) =>
      newEvent(stores.events, { projectId: 1, eventId: id, issueId: 1, timestamp: NOW - age });
    await stores.events.insertEvents([event('a'.repeat(32), 91 * DAY), event('b'.repeat(32), 89 * DAY)]);
    const log = (id: string, age: number) => ({
      id,
      projectId: 1,
      timestamp: NOW - age,
      observedAt: NOW - age,
      traceId: null,
      spanId: null,
      level: 'info' as const,
      severityNumber: 9,
      body: id,
      attributes: {},
      release: null,
      environment: null,
    });
    await stores.logs.insertLogs([log('old', 100 * DAY), log('new', DAY)]);
    const pruned = await pruneExpired({ ...stores, logger: createLogger('silent'), retentionDays: 90, now: () => NOW * 1000 });
    expect(pruned).toMatchObject({ events: 1, logs: 1 });
    expect(await stores.events.getEvent(1, 'a'.repeat(32))).toBeUndefined();
    expect(await stores.events.getEvent(1, 'b'.repeat(32))).toBeDefined();
    expect((await stores.logs.searchLogs({ projectId: 1, limit: 10 })).items.map((l) => l.body)).toEqual(['new']);
  });

  it('deletes sessions and codes past their end, found before only when their cookie or link came back', async () => {
    const user = await stores.users.createUser({
      email: 'gone@example.com',
      name: 'G',
      role: 'member',
      passwordHash: '$scrypt$x',
    });
    const at = (daysAgo: number) => new Date((NOW - daysAgo * DAY) * 1000);
    const session = (daysAgo: number) =>
      stores.users.createSession({
        userId: user.id,
        tokenHash: `s-${daysAgo}`,
        createdAt: at(daysAgo),
        userAgent: 'UA',
        address: '192.0.2.1',
      });
    await session(15); // idle past two weeks
    const live = await session(1);
    await stores.users.replaceCode({
      purpose: 'reset',
      userId: user.id,
      createdAt: at(2),
      expiresAt: at(1),
      codeHash: 'c-expired',
    });
    const pruned = await pruneExpired({ ...stores, logger: createLogger('silent'), retentionDays: 90, now: () => NOW * 1000 });
    expect(pruned.sessions).toBe(2);
    expect((await stores.users.listSessions(user.id)).map((s) => s.id)).toEqual([live.id]);
  });

  it('prunes uploaded source files and maps unused for the retention period, keeping the ones in use', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'errata-maps-'));
    try {
      const blobs = await openFsBlobStore(dir);
      const org = await stores.metadata.ensureOrganization('maps', 'maps');
      const { project } = await stores.metadata.createProject(
        { organizationId: org.id, slug: 'maps', name: 'maps' },
        { publicKey: 'f'.repeat(32), label: 'Default' },
      );
      const artifact = (debugId: string) => ({
        projectId: project.id,
        debugId,
        type: 'source_map' as const,
        url: '~/app.js.map',
        blobKey: `projects/${project.id}/maps/${debugId}/source_map.gz`,
        sizeBytes: 3,
        bundleChecksum: 'c'.repeat(40),
      });
      const [used, unused] = [artifact('11111111-1111-4111-8111-111111111111'), artifact('22222222-2222-4222-8222-222222222222')];
      await stores.metadata.saveSourceMapArtifacts([used, unused]);
      for (const a of [used, unused]) await blobs.put(a.blobKey, Buffer.from('map'));
      // 100 days on, with a 90-day retention: only the map that symbolicated an event on day 95 stays.
      const later = Date.now() + 100 * DAY * 1000;
      await stores.metadata.touchSourceMapArtifacts(project.id, [used.debugId], new Date(Date.now() + 95 * DAY * 1000));
      const early = await pruneExpired({
        ...stores,
        blobs,
        logger: createLogger('silent'),
        retentionDays: 90,
        now: () => Date.now(),
      });
      expect(early.sourceMapFiles).toBe(0);
      const pruned = await pruneExpired({
        ...stores,
        blobs,
        logger: createLogger('silent'),
        retentionDays: 90,
        now: () => later,
      });
      expect(pruned.sourceMapFiles).toBe(1);
      expect((await stores.metadata.listSourceMapArtifacts(project.id, { limit: 100 })).map((a) => a.debugId)).toEqual([
        used.debugId,
      ]);
      expect(await blobs.head(unused.blobKey)).toBeUndefined();
      expect(await blobs.head(used.blobKey)).toBeDefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('deletes the events stored for an issue after it was deleted, ten minutes on', async () => {
    const org = await stores.metadata.ensureOrganization('late', 'late');
    const { project } = await stores.metadata.createProject(
      { organizationId: org.id, slug: 'late', name: 'late' },
      { publicKey: 'd'.repeat(32), label: 'Default' },
    );
    const made = occurrenceMaker();
    const occurrence = { ...made(project), timestamp: Date.now() / 1000 };
    const [counted, quiet] = await stores.metadata.recordOccurrences([
      occurrence,
      { ...made(project, { hashes: ['quiet'] }), timestamp: Date.now() / 1000 },
    ]);
    // The issues are deleted between the batch's counting the first's event and its storing it.
    const actor = { kind: 'person' as const, name: 'ada@example.com' };
    const doomed = [counted!, quiet!].map((r) => ({ id: r.issueId, projectId: project.id }));
    await triageIssues(stores, project.id, doomed, { action: 'delete' }, actor, new Date());
    await stores.events.insertEvents([
      newEvent(stores.events, {
        projectId: project.id,
        eventId: occurrence.eventId,
        issueId: counted!.issueId,
        timestamp: occurrence.timestamp,
      }),
    ]);
    const retention = { ...stores, logger: createLogger('silent'), retentionDays: 90 };
    expect((await pruneExpired({ ...retention, now: () => Date.now() })).lateEvents).toBe(0);
    expect(await stores.events.getEvent(project.id, occurrence.eventId)).toBeDefined();
    const swept = await pruneExpired({ ...retention, now: () => Date.now() + 11 * 60_000 });
    expect(swept.lateEvents).toBe(1);
    expect(await stores.events.getEvent(project.id, occurrence.eventId)).toBeUndefined();
    expect(await stores.metadata.listDeletedIssues(new Date(Date.now() + 11 * 60_000), 10)).toEqual([]);
  });

  it('forgets the assemblies, failed or whose files all went, that last changed before the cutoff', async () => {
    const org = await stores.metadata.ensureOrganization('assemblies', 'assemblies');
    const { project } = await stores.metadata.createProject(
      { organizationId: org.id, slug: 'assemblies', name: 'assemblies' },
      { publicKey: 'e'.repeat(32), label: 'Default' },
    );
    const [failed, ok] = ['d'.repeat(40), 'e'.repeat(40)];
    for (const checksum of [failed, ok]) await stores.metadata.claimAssembly(project.id, checksum, new Date(0), new Date(0));
    await stores.metadata.finishAssembly(project.id, failed, 'error', 'bad zip');
    await stores.metadata.saveSourceMapArtifacts([
      {
        projectId: project.id,
        debugId: '33333333-3333-4333-8333-333333333333',
        type: 'source_map',
        url: '~/app.js.map',
        blobKey: 'k',
        sizeBytes: 3,
        bundleChecksum: ok,
      },
    ]);
    await stores.metadata.finishAssembly(project.id, ok, 'ok', null);
    const retention = { ...stores, logger: createLogger('silent'), retentionDays: 90 };
    expect((await pruneExpired({ ...retention, now: () => Date.now() })).bundleAssemblies).toBe(0);
    const pruned = await pruneExpired({ ...retention, now: () => Date.now() + 91 * DAY * 1000 });
    expect(pruned.bundleAssemblies).toBeGreaterThanOrEqual(1);
    expect(await stores.metadata.getAssembly(project.id, failed)).toBeUndefined();
    expect(await stores.metadata.getAssembly(project.id, ok)).toMatchObject({ state: 'ok' });
  });

  it("deletes agents' tool calls older than the retention period with the events, and keeps the rest", async () => {
    const org = await stores.metadata.ensureOrganization('calls', 'calls');
    const call = (tool: string, ageDays: number) => ({
      organizationId: org.id,
      tokenId: 1,
      tokenName: 'laptop',
      tool,
      at: new Date((NOW - ageDays * DAY) * 1000),
      durationMs: 3,
      outcome: 'ok' as const,
      reason: null,
      argumentSummary: '',
      issues: [],
    });
    await stores.metadata.recordAgentCalls([call('old', 91), call('kept', 89)]);
    const pruned = await pruneExpired({ ...stores, logger: createLogger('silent'), retentionDays: 90, now: () => NOW * 1000 });
    expect(pruned.agentCalls).toBe(1);
    const left = await stores.metadata.listAgentCalls({ organizationId: org.id, limit: 10 });
    expect(left.items.map((c) => c.tool)).toEqual(['kept']);
  });

  it('prunes every other kind when one fails, then fails the pass with its error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'errata-retention-segments-'));
    let clock = (NOW - 91 * DAY) * 1000;
    const segments = await PayloadSegments.open(join(dir, 'payloads'), { mode: 'writer', now: () => clock });
    try {
      // The standalone server's events, payloads in segment files: one expired event, whose
      // segment's file cannot be removed (a directory stands in its place).
      const events = new PgEventStore(stores.client, segments);
      const eventId = 'c'.repeat(32);
      await events.insertEvents([newEvent(events, { projectId: 1, eventId, issueId: 1, timestamp: NOW - 91 * DAY })]);
      const [stuck] = segments.list();
      clock = NOW * 1000;
      segments.append(Buffer.from('today'));
      segments.sync();
      await rm(join(dir, 'payloads', `${stuck}.seg`));
      await mkdir(join(dir, 'payloads', `${stuck}.seg`));
      const org = await stores.metadata.ensureOrganization('failing-step', 'failing-step');
      const call = {
        organizationId: org.id,
        tokenId: 1,
        tokenName: 'laptop',
        tool: 'old',
        at: new Date((NOW - 91 * DAY) * 1000),
        durationMs: 3,
        outcome: 'ok' as const,
        reason: null,
        argumentSummary: '',
        issues: [],
      };
      await stores.metadata.recordAgentCalls([call]);

      const log = new PassThrough();
      const lines: string[] = [];
      log.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
      await expect(
        pruneExpired({ ...stores, events, logger: createLogger('info', log), retentionDays: 90, now: () => NOW * 1000 }),
      ).rejects.toThrow(new RegExp(`could not remove 1 event payload segment file.*segment ${stuck} \\(EISDIR`));
      expect(await events.getEvent(1, eventId)).toBeUndefined(); // its row went before the file failed
      const left = await stores.metadata.listAgentCalls({ organizationId: org.id, limit: 10 });
      expect(left.items).toEqual([]); // pruned all the same, after the failed step
      // The rows that went before the failure are counted.
      expect(lines.map((line) => JSON.parse(line))).toContainEqual(
        expect.objectContaining({ msg: 'retention pruned', events: 1, agentCalls: 1 }),
      );
    } finally {
      segments.close();
      await rm(dir, { recursive: true, force: true });
      await stores.client.query('DELETE FROM payload_segments'); // the record of the segment left behind
    }
  });
});
