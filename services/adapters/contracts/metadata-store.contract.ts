// The MetadataStore contract: every adapter (PGlite, Postgres) must pass these tests, run
// against the real database. Each test works in an organization of its own, so suites can
// share one database without cleaning up.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, UserInputError } from '../../core/errors.ts';
import { stateAfterAction, type ActionRequest } from '../../core/issues/lifecycle.ts';
import type { Occurrence } from '../../core/issues/occurrence.ts';
import type { IssueChange, MetadataStore, Organization, Project } from '../../core/ports/metadata-store.ts';

export function describeMetadataStoreContract(name: string, open: () => Promise<MetadataStore>): void {
  describe(`MetadataStore contract: ${name}`, () => {
    let store: MetadataStore;
    beforeAll(async () => {
      store = await open();
    });

    const unique = () => randomUUID().replace(/-/g, '').slice(0, 12);
    async function orgWithProject(slug = 'web'): Promise<{ org: Organization; project: Project }> {
      const org = await store.ensureOrganization(`org-${unique()}`, 'Org');
      const { project } = await store.createProject(
        { organizationId: org.id, slug, name: 'Web' },
        { publicKey: unique() + unique(), label: 'Default' },
      );
      return { org, project };
    }
    let eventCounter = 0;
    function occurrence(project: Project, overrides: Partial<Occurrence> = {}): Occurrence {
      eventCounter += 1;
      return {
        projectId: project.id,
        eventId: `${unique()}${String(eventCounter).padStart(20, '0')}`,
        hashes: ['hash-a'],
        title: 'TypeError: x is undefined',
        culprit: 'handler(app.js)',
        level: 'error',
        type: 'error',
        metadata: { type: 'TypeError', value: 'x is undefined' },
        timestamp: 1_700_000_000 + eventCounter,
        environment: null,
        release: null,
        userKey: null,
        ...overrides,
      };
    }

    it('creates the organization once, however often it is ensured', async () => {
      const slug = `org-${unique()}`;
      const first = await store.ensureOrganization(slug, 'First');
      const second = await store.ensureOrganization(slug, 'Second');
      expect(second.id).toBe(first.id);
      expect((await store.findOrganization(slug))?.name).toBe('First');
      expect((await store.listOrganizations()).some((o) => o.slug === slug)).toBe(true);
    });

    it('creates a project with its DSN key, finds it by key, and refuses a taken slug', async () => {
      const org = await store.ensureOrganization(`org-${unique()}`, 'Org');
      const publicKey = unique() + unique();
      const { project, key } = await store.createProject(
        { organizationId: org.id, slug: 'api', name: 'API' },
        { publicKey, label: 'Default' },
      );
      expect(project).toMatchObject({ organizationId: org.id, slug: 'api', name: 'API', rateLimitPerMinute: null });
      expect(key).toMatchObject({ projectId: project.id, publicKey, active: true });
      const found = await store.findProjectKey(publicKey);
      expect(found?.project.id).toBe(project.id);
      expect(found?.project.slug).toBe('api');
      expect(await store.findProjectKey('no-such-key')).toBeUndefined();
      await expect(
        store.createProject(
          { organizationId: org.id, slug: 'api', name: 'Again' },
          { publicKey: unique() + unique(), label: 'Default' },
        ),
      ).rejects.toBeInstanceOf(ConflictError);
      expect((await store.listProjects(org.id)).map((p) => p.slug)).toEqual(['api']);
      expect(await store.listProjectKeys(project.id)).toHaveLength(1);
      expect((await store.setProjectKeyActive(publicKey, false))?.active).toBe(false);
      expect((await store.findProjectKey(publicKey))?.key.active).toBe(false);
      expect(await store.setProjectKeyActive('no-such-key', false)).toBeUndefined();
      await store.setProjectRateLimit(project.id, 120);
      expect((await store.getProject(project.id))?.rateLimitPerMinute).toBe(120);
    });

    it('stores agent tokens by hash, revokes them, and lets a revoked name be reused', async () => {
      const { org, project } = await orgWithProject();
      const token = await store.createAgentToken({
        organizationId: org.id,
        projectId: project.id,
        name: 'ci',
        role: 'read',
        tokenHash: `h-${unique()}`,
      });
      expect(token).toMatchObject({ name: 'ci', role: 'read', projectId: project.id, projectSlug: 'web', revokedAt: null });
      const hash = `h-${unique()}`;
      await expect(
        store.createAgentToken({ organizationId: org.id, projectId: null, name: 'ci', role: 'admin', tokenHash: hash }),
      ).rejects.toBeInstanceOf(ConflictError);
      const orgWide = await store.createAgentToken({
        organizationId: org.id,
        projectId: null,
        name: 'ops',
        role: 'admin',
        tokenHash: hash,
      });
      expect((await store.findAgentToken(hash))?.id).toBe(orgWide.id);
      expect((await store.revokeAgentToken(org.id, 'ops'))?.revokedAt).toBeInstanceOf(Date);
      expect(await store.findAgentToken(hash)).toBeUndefined();
      expect(await store.revokeAgentToken(org.id, 'ops')).toBeUndefined();
      await store.createAgentToken({
        organizationId: org.id,
        projectId: null,
        name: 'ops',
        role: 'triage',
        tokenHash: `h-${unique()}`,
      });
      expect((await store.listAgentTokens(org.id)).map((t) => [t.name, t.revokedAt === null])).toEqual([
        ['ci', true],
        ['ops', false],
        ['ops', true],
      ]);
    });

    it('stores upload tokens by hash for one project, revokes them, and keeps them per organization', async () => {
      const { org, project } = await orgWithProject();
      const { org: other, project: otherProject } = await orgWithProject();
      const hash = `u-${unique()}`;
      const token = await store.createUploadToken({ organizationId: org.id, projectId: project.id, name: 'ci', tokenHash: hash });
      expect(token).toMatchObject({
        name: 'ci',
        projectId: project.id,
        projectSlug: 'web',
        organizationId: org.id,
        revokedAt: null,
      });
      expect((await store.findUploadToken(hash))?.id).toBe(token.id);
      // Another table: an agent token lookup never finds it.
      expect(await store.findAgentToken(hash)).toBeUndefined();
      await expect(
        store.createUploadToken({ organizationId: org.id, projectId: project.id, name: 'ci', tokenHash: `u-${unique()}` }),
      ).rejects.toBeInstanceOf(ConflictError);
      await store.createUploadToken({
        organizationId: other.id,
        projectId: otherProject.id,
        name: 'ci',
        tokenHash: `u-${unique()}`,
      });
      expect(await store.revokeUploadToken(other.id, 'nope')).toBeUndefined();
      expect((await store.revokeUploadToken(org.id, 'ci'))?.revokedAt).toBeInstanceOf(Date);
      expect(await store.findUploadToken(hash)).toBeUndefined();
      expect((await store.listUploadTokens(org.id)).map((t) => [t.name, t.revokedAt === null])).toEqual([['ci', false]]);
      expect((await store.listUploadTokens(other.id)).map((t) => [t.name, t.revokedAt === null])).toEqual([['ci', true]]);
    });

    it('claims an assembly once, until it finishes or goes stale, and indexes artifacts by Debug ID', async () => {
      const { project } = await orgWithProject();
      const checksum = 'a'.repeat(40);
      const longAgo = new Date(Date.now() - 3_600_000);
      expect(await store.getAssembly(project.id, checksum)).toBeUndefined();
      expect(await store.claimAssembly(project.id, checksum, longAgo)).toBe(true);
      expect(await store.claimAssembly(project.id, checksum, longAgo)).toBe(false);
      expect((await store.getAssembly(project.id, checksum))?.state).toBe('assembling');
      // An assembly that stopped updating before the cutoff may be taken over.
      expect(await store.claimAssembly(project.id, checksum, new Date(Date.now() + 60_000))).toBe(true);
      await store.finishAssembly(project.id, checksum, 'error', 'bad zip');
      expect(await store.getAssembly(project.id, checksum)).toMatchObject({ state: 'error', detail: 'bad zip' });
      expect(await store.claimAssembly(project.id, checksum, new Date(Date.now() + 60_000))).toBe(false);

      const artifact = {
        projectId: project.id,
        debugId: '154733b7-3a40-544e-9fd4-e3454f09847d',
        type: 'source_map' as const,
        url: '~/app.js.map',
        blobKey: 'projects/1/maps/x/source_map.gz',
        sizeBytes: 5_000_000_000,
        bundleChecksum: checksum,
      };
      await store.saveSourceMapArtifacts([artifact, { ...artifact, type: 'minified_source', url: '~/app.js' }]);
      await store.saveSourceMapArtifacts([{ ...artifact, url: '~/v2/app.js.map' }]);
      const listed = await store.listSourceMapArtifacts(project.id);
      expect(listed.map((a) => [a.type, a.url, a.sizeBytes])).toEqual(
        expect.arrayContaining([
          ['source_map', '~/v2/app.js.map', 5_000_000_000],
          ['minified_source', '~/app.js', 5_000_000_000],
        ]),
      );
      expect(listed).toHaveLength(2);
      expect(await store.listSourceMapArtifacts(project.id + 1000)).toEqual([]);
      expect((await store.findSourceMapArtifact(project.id, artifact.debugId, 'source_map'))?.url).toBe('~/v2/app.js.map');
      expect(await store.findSourceMapArtifact(project.id, artifact.debugId.replace('1', '2'), 'source_map')).toBeUndefined();
      await store.touchSourceMapArtifacts(project.id, [artifact.debugId], new Date(Date.now() + 3_600_000));
      const soon = new Date(Date.now() + 60_000);
      const unused = (await store.listSourceMapArtifactsUnusedSince(soon, 100)).filter((a) => a.projectId === project.id);
      expect(unused).toEqual([]);
      await store.deleteSourceMapArtifacts([{ projectId: project.id, debugId: artifact.debugId, type: 'minified_source' }]);
      expect((await store.listSourceMapArtifacts(project.id)).map((a) => a.type)).toEqual(['source_map']);
      await store.forgetAssemblies(project.id, [checksum]);
      expect(await store.getAssembly(project.id, checksum)).toBeUndefined();
    });

    it('creates an issue per primary hash with per-project short ids', async () => {
      const { project } = await orgWithProject('shop');
      const results = await store.recordOccurrences([
        occurrence(project, { hashes: ['a'] }),
        occurrence(project, { hashes: ['b'] }),
        occurrence(project, { hashes: ['a'] }),
      ]);
      expect(results.map((r) => r.shortId)).toEqual(['SHOP-1', 'SHOP-2', 'SHOP-1']);
      expect(results.map((r) => r.isNewIssue)).toEqual([true, true, false]);
      const { project: other } = await orgWithProject('shop');
      const [elsewhere] = await store.recordOccurrences([occurrence(other, { hashes: ['a'] })]);
      expect(elsewhere?.shortId).toBe('SHOP-1');
      expect(elsewhere?.issueId).not.toBe(results[0]?.issueId);
      const issue = await store.findIssue(project.id, 1);
      expect(issue).toMatchObject({ shortId: 'SHOP-1', count: 2, status: 'unresolved', level: 'error', projectSlug: 'shop' });
    });

    it('counts a redelivered event once and reports it as a duplicate', async () => {
      const { project } = await orgWithProject();
      const first = occurrence(project);
      const [recorded] = await store.recordOccurrences([first, { ...first }]);
      const [again] = await store.recordOccurrences([first]);
      // The facts of the first delivery come back, so alerts evaluated again come out the same.
      expect(recorded).toMatchObject({ isDuplicate: false, isNewIssue: true, countBefore: 0, countAfter: 1 });
      expect(again).toMatchObject({
        isDuplicate: true,
        issueId: recorded!.issueId,
        shortId: 'WEB-1',
        isNewIssue: true,
        isRegression: false,
        countBefore: 0,
        countAfter: 1,
      });
      expect((await store.getIssue(recorded!.issueId))?.count).toBe(1);
    });

    it('reports the issue counts around each batch and which event brought a release first', async () => {
      const { project } = await orgWithProject();
      const batch = [
        occurrence(project, { release: 'web@2', timestamp: 1_700_000_500 }),
        occurrence(project, { release: 'web@2', timestamp: 1_700_000_400 }),
        occurrence(project, { release: 'web@1' }),
      ];
      const results = await store.recordOccurrences(batch);
      expect(results.map((r) => [r.isNewRelease, r.countBefore, r.countAfter])).toEqual([
        [false, 0, 3],
        [true, 0, 3],
        [true, 0, 3],
      ]);
      const later = await store.recordOccurrences([occurrence(project, { release: 'web@2' }), occurrence(project)]);
      expect(later.map((r) => [r.isNewRelease, r.countBefore, r.countAfter])).toEqual([
        [false, 3, 5],
        [false, 3, 5],
      ]);
      const [replayed] = await store.recordOccurrences([batch[1]!]);
      expect(replayed).toMatchObject({ isDuplicate: true, isNewRelease: true, countBefore: 0, countAfter: 3 });
    });

    it('finds an issue by any of its hashes and links new ones', async () => {
      const { project } = await orgWithProject();
      const [first] = await store.recordOccurrences([occurrence(project, { hashes: ['app-1', 'system-1'] })]);
      const [bySecondary] = await store.recordOccurrences([occurrence(project, { hashes: ['system-1'] })]);
      const [byNew] = await store.recordOccurrences([occurrence(project, { hashes: ['app-2', 'system-1'] })]);
      const [byLinked] = await store.recordOccurrences([occurrence(project, { hashes: ['app-2'] })]);
      expect(new Set([first, bySecondary, byNew, byLinked].map((r) => r!.issueId)).size).toBe(1);
      expect((await store.getIssue(first!.issueId))?.count).toBe(4);
    });

    it('makes one issue of groups in one batch that share a hash, in either order', async () => {
      const { project } = await orgWithProject();
      const one = await store.recordOccurrences([
        occurrence(project, { hashes: ['app-x', 'system-x'] }),
        occurrence(project, { hashes: ['system-x'] }),
      ]);
      const two = await store.recordOccurrences([
        occurrence(project, { hashes: ['system-y'] }),
        occurrence(project, { hashes: ['app-y', 'system-y'] }),
      ]);
      expect(new Set(one.map((r) => r.issueId)).size).toBe(1);
      expect(new Set(two.map((r) => r.issueId)).size).toBe(1);
      expect((await store.getIssue(one[0]!.issueId))?.count).toBe(2);
      expect((await store.getIssue(two[0]!.issueId))?.count).toBe(2);
      expect(one[0]!.issueId).not.toBe(two[0]!.issueId);
    });

    it('folds groups of one batch that reach the same existing issue into one update', async () => {
      const { project } = await orgWithProject();
      const [first] = await store.recordOccurrences([
        occurrence(project, { hashes: ['p1', 'shared'], timestamp: 1_950_000_000 }),
      ]);
      const results = await store.recordOccurrences([
        occurrence(project, { hashes: ['p2', 'shared'], timestamp: 1_950_000_010, title: 'Second', userKey: 'id:a' }),
        occurrence(project, {
          hashes: ['p3', 'shared'],
          timestamp: 1_950_000_020,
          title: 'Third',
          userKey: 'id:b',
          environment: 'prod',
        }),
      ]);
      expect(results.map((r) => r.issueId)).toEqual([first!.issueId, first!.issueId]);
      expect(await store.getIssue(first!.issueId)).toMatchObject({
        count: 3,
        title: 'Third',
        userCount: 2,
        environments: ['prod'],
      });
      const [viaNewHash] = await store.recordOccurrences([occurrence(project, { hashes: ['p3'] })]);
      expect(viaNewHash!.issueId).toBe(first!.issueId);
    });

    it('keeps counts, first and last seen, newest facts, environments, releases and distinct users', async () => {
      const { project } = await orgWithProject();
      const t = 1_800_000_000;
      await store.recordOccurrences([
        occurrence(project, {
          timestamp: t + 10,
          title: 'Newest',
          level: 'fatal',
          environment: 'production',
          release: '1.1',
          userKey: 'id:1',
        }),
        occurrence(project, { timestamp: t, title: 'Oldest', environment: 'staging', release: '1.0', userKey: 'id:1' }),
      ]);
      await store.recordOccurrences([
        occurrence(project, { timestamp: t + 5, title: 'Older than newest', userKey: 'id:2', environment: 'production' }),
      ]);
      const issue = (await store.findIssue(project.id, 1))!;
      expect(issue).toMatchObject({
        title: 'Newest',
        level: 'fatal',
        count: 3,
        userCount: 2,
        firstRelease: '1.0',
        lastRelease: '1.1',
      });
      expect(issue.firstSeen.getTime()).toBe(t * 1000);
      expect(issue.lastSeen.getTime()).toBe((t + 10) * 1000);
      expect([...issue.environments].sort()).toEqual(['production', 'staging']);
      const releases = await store.listReleases(project.id);
      expect(releases.map((r) => r.version).sort()).toEqual(['1.0', '1.1']);
    });

    it('lists issues newest first with filters and a cursor, never from another project', async () => {
      const { project } = await orgWithProject();
      const { project: other } = await orgWithProject();
      const base = 1_900_000_000;
      const batch = Array.from({ length: 5 }, (_, i) =>
        occurrence(project, {
          hashes: [`h${i}`],
          timestamp: base + i,
          title: i % 2 ? `Warning ${i}` : `Crash ${i}`,
          level: i % 2 ? 'warning' : 'error',
        }),
      );
      await store.recordOccurrences(batch);
      await store.recordOccurrences([occurrence(other, { hashes: ['h0'], timestamp: base + 100 })]);
      const page1 = await store.listIssues({ projectId: project.id, limit: 2 });
      expect(page1.items.map((i) => i.title)).toEqual(['Crash 4', 'Warning 3']);
      const page2 = await store.listIssues({ projectId: project.id, limit: 2, cursor: page1.nextCursor });
      expect(page2.items.map((i) => i.title)).toEqual(['Crash 2', 'Warning 1']);
      const page3 = await store.listIssues({ projectId: project.id, limit: 2, cursor: page2.nextCursor });
      expect(page3.items.map((i) => i.title)).toEqual(['Crash 0']);
      expect(page3.nextCursor).toBeUndefined();
      expect((await store.listIssues({ projectId: project.id, limit: 10, level: 'warning' })).items).toHaveLength(2);
      expect((await store.listIssues({ projectId: project.id, limit: 10, text: 'crash 4' })).items.map((i) => i.title)).toEqual([
        'Crash 4',
      ]);
      expect((await store.listIssues({ projectId: project.id, limit: 10, text: '100%_' })).items).toEqual([]);
      expect((await store.listIssues({ projectId: project.id, limit: 10, status: 'resolved' })).items).toEqual([]);
      expect((await store.listIssues({ projectId: project.id, limit: 10, status: 'all' })).items).toHaveLength(5);
      await expect(store.listIssues({ projectId: project.id, limit: 2, cursor: 'garbage' })).rejects.toBeInstanceOf(
        UserInputError,
      );
    });

    describe('issue lifecycle', () => {
      // Event times in seconds; every test sets its own, well clear of the defaults above.
      const T = 1_750_000_000;
      const at = (seconds: number) => new Date(seconds * 1000);
      function change(request: ActionRequest, now: Date, details: Record<string, unknown> = {}): IssueChange {
        return { state: stateAfterAction(request, 'alice', now), at: now, actor: 'alice', kind: request.action, details };
      }
      async function record(project: Project, overrides: Partial<Occurrence>) {
        const [result] = await store.recordOccurrences([occurrence(project, overrides)]);
        return result!;
      }

      it('changeIssues resolves with a marker and returns only the ids whose status changed', async () => {
        const { project } = await orgWithProject();
        const a = await record(project, { hashes: ['a'], timestamp: T });
        const b = await record(project, { hashes: ['b'], timestamp: T });
        const resolve = change({ action: 'resolve', release: '2.0', note: 'fixed' }, at(T + 10), { release: '2.0' });
        const changed = await store.changeIssues(project.id, [a.issueId, b.issueId], resolve);
        expect([...changed].sort((x, y) => x - y)).toEqual([a.issueId, b.issueId].sort((x, y) => x - y));
        expect(await store.getIssue(a.issueId)).toMatchObject({
          status: 'resolved',
          resolution: { resolvedAt: at(T + 10).toISOString(), by: 'alice', release: '2.0', note: 'fixed' },
          snoozeUntil: null,
        });
        expect(await store.changeIssues(project.id, [a.issueId], change({ action: 'resolve' }, at(T + 20)))).toEqual([]);
        // Resolving again still stamps a fresh marker.
        expect((await store.getIssue(a.issueId))?.resolution).toEqual({ resolvedAt: at(T + 20).toISOString(), by: 'alice' });
        expect(await store.changeIssues(project.id, [], resolve)).toEqual([]);
      });

      it('changeIssues writes one activity entry per issue and call, newest first', async () => {
        const { project } = await orgWithProject();
        const a = await record(project, { hashes: ['a'], timestamp: T });
        const b = await record(project, { hashes: ['b'], timestamp: T });
        await store.changeIssues(project.id, [a.issueId, b.issueId], change({ action: 'resolve' }, at(T + 10), { note: 'n' }));
        await store.changeIssues(project.id, [a.issueId], change({ action: 'resolve' }, at(T + 20)));
        await store.changeIssues(
          project.id,
          [a.issueId],
          change({ action: 'snooze', snoozeMinutes: 5 }, at(T + 30), { snoozeMinutes: 5 }),
        );
        const activity = await store.listIssueActivity(a.issueId, 10);
        expect(activity.map((e) => [e.kind, e.actor, e.details])).toEqual([
          ['snooze', 'alice', { snoozeMinutes: 5 }],
          ['resolve', 'alice', {}],
          ['resolve', 'alice', { note: 'n' }],
        ]);
        expect(activity.every((e) => e.issueId === a.issueId)).toBe(true);
        // Stamped with the caller's clock, not the database's.
        expect(activity.map((e) => e.at)).toEqual([at(T + 30), at(T + 20), at(T + 10)]);
        expect((await store.listIssueActivity(a.issueId, 1)).map((e) => e.kind)).toEqual(['snooze']);
        expect((await store.listIssueActivity(b.issueId, 10)).map((e) => e.kind)).toEqual(['resolve']);
      });

      it('takes a NUL or a lone surrogate in any text or JSON value: stored as U+FFFD, looked up and searched', async () => {
        // Postgres refuses both (NUL in text; their escapes in jsonb): a user's note, name or
        // search with one was a 500. Ingest stores them as U+FFFD, so a search with one finds it.
        const { org, project } = await orgWithProject();
        expect(await store.findOrganization('org\u0000')).toBeUndefined();
        expect(await store.findProject(org.id, 'web\u0000\ud800')).toBeUndefined();
        const { project: named } = await store.createProject(
          { organizationId: org.id, slug: 'named', name: 'Name \u0000 \ud800' },
          { publicKey: unique() + unique(), label: 'Default \u0000' },
        );
        expect(named.name).toBe('Name \ufffd \ufffd');
        const a = await record(project, { hashes: ['a'], timestamp: T, title: 'Crash \ufffd here' });
        for (const text of ['\u0000', '\ud800', 'crash \u0000 HERE']) {
          expect((await store.listIssues({ projectId: project.id, limit: 10, text })).items.map((i) => i.title)).toEqual([
            'Crash \ufffd here',
          ]);
        }
        const request = { action: 'resolve', commit: 'c\u0000', release: 'r\ud800', note: 'n \u0000\udc00' } as const;
        await store.changeIssues(project.id, [a.issueId], change(request, at(T + 10), { note: request.note, ['k\u0000']: 1 }));
        expect((await store.getIssue(a.issueId))?.resolution).toMatchObject({
          commit: 'c\ufffd',
          release: 'r\ufffd',
          note: 'n \ufffd\ufffd',
        });
        expect((await store.listIssueActivity(a.issueId, 1))[0]?.details).toEqual({ note: 'n \ufffd\ufffd', 'k\ufffd': 1 });
        const token = await store.createUploadToken({
          organizationId: org.id,
          projectId: project.id,
          name: 'ci \u0000',
          tokenHash: unique(),
        });
        expect(token.name).toBe('ci \ufffd');
      });

      it('changeIssues leaves an issue of another project alone', async () => {
        const { project } = await orgWithProject();
        const { project: other } = await orgWithProject();
        const mine = await record(project, { hashes: ['a'], timestamp: T });
        const theirs = await record(other, { hashes: ['a'], timestamp: T });
        const changed = await store.changeIssues(
          project.id,
          [mine.issueId, theirs.issueId],
          change({ action: 'ignore' }, at(T + 10)),
        );
        expect(changed).toEqual([mine.issueId]);
        expect(await store.getIssue(theirs.issueId)).toMatchObject({ status: 'unresolved', resolution: null });
        expect(await store.listIssueActivity(theirs.issueId, 10)).toEqual([]);
      });

      it('any other action clears the resolution marker', async () => {
        const { project } = await orgWithProject();
        const a = await record(project, { hashes: ['a'], timestamp: T });
        await store.changeIssues(project.id, [a.issueId], change({ action: 'resolve', commit: 'abc' }, at(T + 10)));
        await store.changeIssues(project.id, [a.issueId], change({ action: 'snooze', snoozeMinutes: 60 }, at(T + 20)));
        expect(await store.getIssue(a.issueId)).toMatchObject({
          status: 'snoozed',
          resolution: null,
          snoozeUntil: at(T + 20 + 3600),
        });
        await store.changeIssues(project.id, [a.issueId], change({ action: 'unresolve' }, at(T + 30)));
        expect(await store.getIssue(a.issueId)).toMatchObject({ status: 'unresolved', resolution: null, snoozeUntil: null });
      });

      it('an event newer than the resolve regresses the issue, keeping the marker', async () => {
        const { project } = await orgWithProject();
        const first = await record(project, { hashes: ['a'], timestamp: T });
        await store.changeIssues(project.id, [first.issueId], change({ action: 'resolve' }, at(T + 100)));
        const batch = [
          occurrence(project, { hashes: ['a'], timestamp: T + 50, release: '1.0' }),
          occurrence(project, { hashes: ['a'], timestamp: T + 300, release: '1.2' }),
          occurrence(project, { hashes: ['a'], timestamp: T + 200, release: '1.1' }),
        ];
        const results = await store.recordOccurrences(batch);
        // The earliest event after the resolve is the one that regressed it.
        expect(results.map((r) => r.isRegression)).toEqual([false, false, true]);
        const issue = await store.getIssue(first.issueId);
        expect(issue).toMatchObject({
          status: 'unresolved',
          resolution: { resolvedAt: at(T + 100).toISOString(), by: 'alice' },
          regressedAt: at(T + 200),
          regressionRelease: '1.1',
          count: 4,
        });
        const [latest] = await store.listIssueActivity(first.issueId, 10);
        expect(latest).toMatchObject({ kind: 'regression', actor: 'errata', details: { eventId: batch[2]!.eventId } });
        // Unresolved now: later events count, but regress nothing.
        expect((await record(project, { hashes: ['a'], timestamp: T + 400 })).isRegression).toBe(false);
        expect((await store.getIssue(first.issueId))?.regressedAt).toEqual(at(T + 200));
      });

      it('an event older than the resolve does not regress the issue', async () => {
        const { project } = await orgWithProject();
        const first = await record(project, { hashes: ['a'], timestamp: T });
        await store.changeIssues(project.id, [first.issueId], change({ action: 'resolve' }, at(T + 100)));
        const late = await record(project, { hashes: ['a'], timestamp: T + 99 });
        const onTheDot = await record(project, { hashes: ['a'], timestamp: T + 100 });
        expect([late.isRegression, onTheDot.isRegression]).toEqual([false, false]);
        expect(await store.getIssue(first.issueId)).toMatchObject({ status: 'resolved', count: 3, regressedAt: null });
        expect((await store.listIssueActivity(first.issueId, 10)).map((e) => e.kind)).toEqual(['resolve']);
      });

      it('a resolve in a release is not regressed by events of an older release, only by that release or newer', async () => {
        const { project } = await orgWithProject();
        const first = await record(project, { hashes: ['a'], timestamp: T, release: '1.0' });
        await record(project, { hashes: ['a'], timestamp: T + 1000, release: '2.0' });
        await store.changeIssues(project.id, [first.issueId], change({ action: 'resolve', release: '2.0' }, at(T + 2000)));
        const old = await record(project, { hashes: ['a'], timestamp: T + 3000, release: '1.0' });
        expect(old.isRegression).toBe(false);
        expect((await store.getIssue(first.issueId))?.status).toBe('resolved');
        const current = await record(project, { hashes: ['a'], timestamp: T + 3001, release: '2.0' });
        expect(current.isRegression).toBe(true);
        expect(await store.getIssue(first.issueId)).toMatchObject({ status: 'unresolved', regressionRelease: '2.0' });
      });

      it('a release first seen after the marker release regresses the issue', async () => {
        const { project } = await orgWithProject();
        const first = await record(project, { hashes: ['a'], timestamp: T, release: '2.0' });
        await store.changeIssues(project.id, [first.issueId], change({ action: 'resolve', release: '2.0' }, at(T + 10)));
        // 3.0 is new in this very batch: first seen at the event's own time, after 2.0.
        expect((await record(project, { hashes: ['a'], timestamp: T + 20, release: '3.0' })).isRegression).toBe(true);
        expect((await store.getIssue(first.issueId))?.regressionRelease).toBe('3.0');
      });

      it('a resolve in a release never seen is regressed only by that release or an event without one', async () => {
        const { project } = await orgWithProject();
        const first = await record(project, { hashes: ['a'], timestamp: T, release: '1.0' });
        await store.changeIssues(project.id, [first.issueId], change({ action: 'resolve', release: '9.0' }, at(T + 10)));
        expect((await record(project, { hashes: ['a'], timestamp: T + 20, release: '1.0' })).isRegression).toBe(false);
        expect((await record(project, { hashes: ['a'], timestamp: T + 30, release: '1.5' })).isRegression).toBe(false);
        expect((await store.getIssue(first.issueId))?.status).toBe('resolved');
        expect((await record(project, { hashes: ['a'], timestamp: T + 40, release: null })).isRegression).toBe(true);
        expect(await store.getIssue(first.issueId)).toMatchObject({ status: 'unresolved', regressionRelease: null });
      });

      it('a snoozed issue stays snoozed on earlier events and wakes on one at or after its end', async () => {
        const { project } = await orgWithProject();
        const first = await record(project, { hashes: ['a'], timestamp: T });
        await store.changeIssues(project.id, [first.issueId], change({ action: 'snooze', snoozeMinutes: 10 }, at(T)));
        const until = at(T + 600);
        expect((await store.getIssue(first.issueId))?.snoozeUntil).toEqual(until);
        const early = await record(project, { hashes: ['a'], timestamp: T + 599.5 });
        expect(await store.getIssue(first.issueId)).toMatchObject({ status: 'snoozed', snoozeUntil: until });
        const waking = await record(project, { hashes: ['a'], timestamp: T + 600 });
        expect([early.isRegression, waking.isRegression]).toEqual([false, false]);
        expect(await store.getIssue(first.issueId)).toMatchObject({
          status: 'unresolved',
          snoozeUntil: null,
          resolution: null,
          regressedAt: null,
        });
        const [latest] = await store.listIssueActivity(first.issueId, 10);
        expect(latest).toMatchObject({ kind: 'snooze_expired', actor: 'errata', details: { eventId: waking.eventId } });
      });

      it('expireSnoozes wakes the snoozes that ended by now, once', async () => {
        // expireSnoozes spans every project: a clock in the 1990s keeps other tests' snoozes out.
        const now = new Date('1996-01-01T00:00:00.000Z');
        const minutesBefore = (date: Date, minutes: number) => new Date(date.getTime() - minutes * 60_000);
        const { project } = await orgWithProject();
        const ended = await record(project, { hashes: ['ended'], timestamp: T });
        const endsNow = await record(project, { hashes: ['ends-now'], timestamp: T });
        const later = await record(project, { hashes: ['later'], timestamp: T });
        const ignored = await record(project, { hashes: ['ignored'], timestamp: T });
        await store.changeIssues(
          project.id,
          [ended.issueId],
          change({ action: 'snooze', snoozeMinutes: 30 }, minutesBefore(now, 60)),
        );
        await store.changeIssues(
          project.id,
          [endsNow.issueId],
          change({ action: 'snooze', snoozeMinutes: 30 }, minutesBefore(now, 30)),
        );
        await store.changeIssues(
          project.id,
          [later.issueId],
          change({ action: 'snooze', snoozeMinutes: 30 }, minutesBefore(now, 29)),
        );
        await store.changeIssues(project.id, [ignored.issueId], change({ action: 'ignore' }, minutesBefore(now, 60)));

        expect(await store.expireSnoozes(now)).toBe(2);
        expect(await store.getIssue(ended.issueId)).toMatchObject({ status: 'unresolved', snoozeUntil: null });
        expect(await store.getIssue(endsNow.issueId)).toMatchObject({ status: 'unresolved', snoozeUntil: null });
        expect(await store.getIssue(later.issueId)).toMatchObject({ status: 'snoozed', snoozeUntil: minutesBefore(now, -1) });
        expect((await store.getIssue(ignored.issueId))?.status).toBe('ignored');
        const [latest] = await store.listIssueActivity(ended.issueId, 10);
        expect(latest).toMatchObject({
          kind: 'snooze_expired',
          actor: 'errata',
          details: { snoozeUntil: minutesBefore(now, 30).toISOString() },
        });
        expect(await store.expireSnoozes(now)).toBe(0);
      });

      it('deleteIssues removes the issue and its activity; its fingerprint then starts a new issue', async () => {
        const { project } = await orgWithProject();
        const { project: other } = await orgWithProject();
        const gone = await record(project, { hashes: ['gone', 'gone-secondary'], timestamp: T });
        const kept = await record(project, { hashes: ['kept'], timestamp: T });
        const theirs = await record(other, { hashes: ['gone'], timestamp: T });
        await store.changeIssues(project.id, [gone.issueId], change({ action: 'resolve' }, at(T + 10)));

        expect(await store.deleteIssues(project.id, [gone.issueId, theirs.issueId])).toBe(1);
        expect(await store.findIssue(project.id, 1)).toBeUndefined();
        expect(await store.getIssue(gone.issueId)).toBeUndefined();
        expect(await store.listIssueActivity(gone.issueId, 10)).toEqual([]);
        expect(await store.getIssue(kept.issueId)).toBeDefined();
        expect(await store.getIssue(theirs.issueId)).toBeDefined();
        expect(await store.deleteIssues(project.id, [gone.issueId])).toBe(0);
        expect(await store.deleteIssues(project.id, [])).toBe(0);

        const reborn = await record(project, { hashes: ['gone-secondary'], timestamp: T + 20 });
        expect(reborn).toMatchObject({ isNewIssue: true, isRegression: false, shortId: 'WEB-3' });
        expect(reborn.issueId).not.toBe(gone.issueId);
        expect(await store.getIssue(reborn.issueId)).toMatchObject({ status: 'unresolved', count: 1, resolution: null });
      });

      it('deleteIssues forgets the counted event ids, so a redelivery counts once for the new issue', async () => {
        const { project } = await orgWithProject();
        const original = occurrence(project, { hashes: ['a'], timestamp: T });
        const [gone] = await store.recordOccurrences([original]);
        await store.deleteIssues(project.id, [gone!.issueId]);
        const [again] = await store.recordOccurrences([original]);
        expect(again).toMatchObject({ isNewIssue: true, isDuplicate: false });
        const [thrice] = await store.recordOccurrences([original]);
        expect(thrice).toMatchObject({ isDuplicate: true, issueId: again!.issueId });
        expect((await store.getIssue(again!.issueId))?.count).toBe(1);
      });

      it('lists issues by first seen, regression time, first release and regression release', async () => {
        const { project } = await orgWithProject();
        const { project: other } = await orgWithProject();
        const old = await record(project, { hashes: ['old'], timestamp: T, release: '1.0' });
        const newer = await record(project, { hashes: ['newer'], timestamp: T + 100, release: '2.0' });
        const newest = await record(project, { hashes: ['newest'], timestamp: T + 200, release: '2.0' });
        await record(other, { hashes: ['newer'], timestamp: T + 100, release: '2.0' });
        await store.changeIssues(project.id, [old.issueId, newer.issueId], change({ action: 'resolve' }, at(T + 300)));
        await record(project, { hashes: ['newer'], timestamp: T + 400, release: '2.1' });

        const ids = async (query: Partial<Parameters<MetadataStore['listIssues']>[0]>) =>
          (await store.listIssues({ projectId: project.id, limit: 10, status: 'all', ...query })).items.map((i) => i.id);
        expect(await ids({ firstSeenSince: at(T + 100) })).toEqual([newer.issueId, newest.issueId]);
        expect(await ids({ firstSeenSince: at(T + 201) })).toEqual([]);
        expect(await ids({ regressedSince: at(T + 400) })).toEqual([newer.issueId]);
        expect(await ids({ regressedSince: at(T + 401) })).toEqual([]);
        expect(await ids({ firstRelease: '2.0' })).toEqual([newer.issueId, newest.issueId]);
        expect(await ids({ firstRelease: '1.0' })).toEqual([old.issueId]);
        expect(await ids({ firstRelease: '1.0', status: 'unresolved' })).toEqual([]);
        expect(await ids({ regressionRelease: '2.1' })).toEqual([newer.issueId]);
        expect(await ids({ regressionRelease: '2.0' })).toEqual([]);
        expect(await ids({ firstRelease: '2.0', regressedSince: at(T) })).toEqual([newer.issueId]);
      });
    });
  });
}
