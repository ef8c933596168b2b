// The MetadataStore contract: every adapter (PGlite, Postgres) must pass these tests, run
// against the real database. Each test works in an organization of its own, so suites can
// share one database without cleaning up.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, UserInputError } from '../../core/errors.ts';
import type { Occurrence } from '../../core/issues/occurrence.ts';
import type { MetadataStore, Organization, Project } from '../../core/ports/metadata-store.ts';

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
      expect(again).toMatchObject({ isDuplicate: true, issueId: recorded!.issueId, shortId: 'WEB-1', isNewIssue: false });
      expect((await store.getIssue(recorded!.issueId))?.count).toBe(1);
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
  });
}
