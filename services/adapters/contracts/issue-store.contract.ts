// The IssueStore contract (issues, occurrences, lifecycle, activity, releases; a slice of the
// MetadataStore): every adapter must pass these tests, run against the real database, with a
// TenancyStore over the same database for the projects the issues belong to.
import { beforeAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../../core/errors.ts';
import type { Occurrence } from '../../core/issues/occurrence.ts';
import { MAX_ISSUE_ENVIRONMENTS, type IssueSort, type IssueStore } from '../../core/ports/issue-store.ts';
import type { Project, TenancyStore } from '../../core/ports/tenancy-store.ts';
import * as fixtures from './metadata-fixtures.ts';
import { at, change, T } from './metadata-fixtures.ts';

export function describeIssueStoreContract(
  name: string,
  open: () => Promise<{ issues: IssueStore; tenancy: TenancyStore }>,
): void {
  describe(`IssueStore contract: ${name}`, () => {
    let store: IssueStore;
    let tenancy: TenancyStore;
    beforeAll(async () => {
      ({ issues: store, tenancy } = await open());
    });
    const orgWithProject = (slug?: string) => fixtures.orgWithProject(tenancy, slug);
    const occurrence = fixtures.occurrenceMaker();

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
      // An issue seen before takes the batch's new environments too, whatever their characters.
      await store.recordOccurrences([
        occurrence(project, { timestamp: t + 5, title: 'Older than newest', userKey: 'id:2', environment: 'production' }),
        occurrence(project, { timestamp: t + 1, environment: 'qa "east" \\ ü' }),
      ]);
      const issue = (await store.findIssue(project.id, 1))!;
      expect(issue).toMatchObject({
        title: 'Newest',
        level: 'fatal',
        count: 4,
        userCount: 2,
        firstRelease: '1.0',
        lastRelease: '1.1',
      });
      expect(issue.firstSeen.getTime()).toBe(t * 1000);
      expect(issue.lastSeen.getTime()).toBe((t + 10) * 1000);
      expect([...issue.environments].sort()).toEqual(['production', 'qa "east" \\ ü', 'staging']);
      const releases = await store.listReleases(project.id, 10);
      expect(releases.map((r) => r.version).sort()).toEqual(['1.0', '1.1']);
      expect(await store.countReleases(project.id)).toBe(2);
      // Newest first, at most the limit.
      expect((await store.listReleases(project.id, 1)).map((r) => r.version)).toEqual(['1.1']);
    });

    it('gives an issue the releases of its oldest and newest events that have one, whichever batch brings them', async () => {
      const { project } = await orgWithProject();
      const t = 1_800_000_000;
      await store.recordOccurrences([occurrence(project, { timestamp: t })]);
      await store.recordOccurrences([
        occurrence(project, { timestamp: t + 20 }),
        occurrence(project, { timestamp: t + 10, release: '1.1' }),
        occurrence(project, { timestamp: t + 5, release: '1.0' }),
      ]);
      expect(await store.findIssue(project.id, 1)).toMatchObject({ firstRelease: '1.0', lastRelease: '1.1' });
      // The same batch making the issue: its first and last releases by time, not by arrival.
      const { project: fresh } = await orgWithProject();
      await store.recordOccurrences([
        occurrence(fresh, { timestamp: t + 20 }),
        occurrence(fresh, { timestamp: t + 10, release: '1.1' }),
        occurrence(fresh, { timestamp: t + 5, release: '1.0' }),
      ]);
      expect(await store.findIssue(fresh.id, 1)).toMatchObject({ firstRelease: '1.0', lastRelease: '1.1' });
    });

    it('takes a newer last release, or an older first one, from a batch that arrives after newer events', async () => {
      const { project } = await orgWithProject();
      const t = 1_800_000_000;
      await store.recordOccurrences([occurrence(project, { timestamp: t + 100, release: '2.0' })]);
      // An event without a release makes the issue's last event newer than its last release.
      await store.recordOccurrences([occurrence(project, { timestamp: t + 200 })]);
      // Late, from another partition or a client that was offline: a newer release, and an older one.
      await store.recordOccurrences([occurrence(project, { timestamp: t + 150, release: '3.0' })]);
      await store.recordOccurrences([occurrence(project, { timestamp: t + 50, release: '1.0' })]);
      expect(await store.findIssue(project.id, 1)).toMatchObject({ firstRelease: '1.0', lastRelease: '3.0' });
      // Late again, but neither newer nor older than what set them: both stay.
      await store.recordOccurrences([occurrence(project, { timestamp: t + 120, release: '2.5' })]);
      expect(await store.findIssue(project.id, 1)).toMatchObject({ firstRelease: '1.0', lastRelease: '3.0' });
    });

    it('keeps the first MAX_ISSUE_ENVIRONMENTS environments of an issue, whether they come in one batch or many', async () => {
      const { project } = await orgWithProject();
      const names = Array.from({ length: MAX_ISSUE_ENVIRONMENTS + 20 }, (_, i) => `env-${String(i).padStart(3, '0')}`);
      const batch = (from: number, to: number) =>
        names.slice(from, to).map((environment, i) => occurrence(project, { timestamp: 1_800_000_000 + from + i, environment }));
      await store.recordOccurrences(batch(0, 10));
      await store.recordOccurrences(batch(10, MAX_ISSUE_ENVIRONMENTS + 10));
      await store.recordOccurrences(batch(MAX_ISSUE_ENVIRONMENTS + 10, MAX_ISSUE_ENVIRONMENTS + 20));
      const issue = (await store.findIssue(project.id, 1))!;
      expect(issue.count).toBe(MAX_ISSUE_ENVIRONMENTS + 20);
      expect(issue.environments).toEqual(names.slice(0, MAX_ISSUE_ENVIRONMENTS));
      const { project: fresh } = await orgWithProject();
      await store.recordOccurrences(names.map((environment) => occurrence(fresh, { environment })));
      expect((await store.findIssue(fresh.id, 1))!.environments).toHaveLength(MAX_ISSUE_ENVIRONMENTS);
      // Its list full, it may since have been seen anywhere: excluding any environment leaves it
      // out (before, `!environment:staging` kept it, and a bulk delete took it).
      const excluding = (environments: string[]) =>
        store.listIssues({ projectId: project.id, limit: 10, status: 'all', exclude: { environments } });
      expect((await excluding(['staging'])).items).toEqual([]);
      expect((await excluding([names.at(-1)!])).items).toEqual([]);
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

    it('lists issues by environment, and leaves out excluded statuses, levels, environments and first releases', async () => {
      const { project } = await orgWithProject();
      const base = 1_950_000_000;
      const [prod, staging, both, none] = await store.recordOccurrences([
        occurrence(project, { hashes: ['prod'], timestamp: base + 3, environment: 'production', release: '1.0' }),
        occurrence(project, {
          hashes: ['staging'],
          timestamp: base + 2,
          environment: 'staging',
          level: 'warning',
          release: '2.0',
        }),
        occurrence(project, { hashes: ['both'], timestamp: base + 1, environment: 'production', level: 'fatal' }),
        occurrence(project, { hashes: ['none'], timestamp: base }),
      ]);
      await store.recordOccurrences([
        occurrence(project, { hashes: ['both'], timestamp: base + 1, environment: 'staging', level: 'fatal' }),
      ]);
      await store.changeIssues(project.id, [staging!.issueId], change({ action: 'ignore' }, at(base + 10)));
      const ids = async (query: Partial<Parameters<IssueStore['listIssues']>[0]>) =>
        (await store.listIssues({ projectId: project.id, limit: 10, status: 'all', ...query })).items.map((i) => i.id);
      expect(await ids({ environment: 'production' })).toEqual([prod!.issueId, both!.issueId]);
      expect(await ids({ environment: 'staging' })).toEqual([staging!.issueId, both!.issueId]);
      expect(await ids({ environment: 'prod' })).toEqual([]);
      expect(await ids({ exclude: { environments: ['staging'] } })).toEqual([prod!.issueId, none!.issueId]);
      expect(await ids({ exclude: { environments: ['staging', 'production'] } })).toEqual([none!.issueId]);
      expect(await ids({ exclude: { statuses: ['ignored'] } })).toEqual([prod!.issueId, both!.issueId, none!.issueId]);
      expect(await ids({ exclude: { statuses: ['ignored', 'unresolved'] } })).toEqual([]);
      expect(await ids({ exclude: { levels: ['error'] } })).toEqual([staging!.issueId, both!.issueId]);
      expect(await ids({ exclude: { levels: ['warning', 'fatal'] } })).toEqual([prod!.issueId, none!.issueId]);
      // An issue without a first release is not "first seen in 1.0", so it stays.
      expect(await ids({ exclude: { firstReleases: ['1.0'] } })).toEqual([staging!.issueId, both!.issueId, none!.issueId]);
      expect(await ids({ environment: 'production', exclude: { levels: ['fatal'], firstReleases: ['2.0'] } })).toEqual([
        prod!.issueId,
      ]);
    });

    it('sorts by first seen, events and users, each paged on (key, id) across ties without skipping or repeating', async () => {
      const { project } = await orgWithProject();
      const base = 1_960_000_000;
      // a: first seen last, 3 events, 1 user; b: first seen first, 1 event, 2 users; c and d tie
      // b and a on events and users, so the id decides between them.
      await store.recordOccurrences([
        occurrence(project, { hashes: ['b'], title: 'b', timestamp: base, userKey: 'u1' }),
        occurrence(project, { hashes: ['c'], title: 'c', timestamp: base + 1 }),
        occurrence(project, { hashes: ['d'], title: 'd', timestamp: base + 2, userKey: 'u1' }),
        occurrence(project, { hashes: ['a'], title: 'a', timestamp: base + 3, userKey: 'u1' }),
      ]);
      await store.recordOccurrences([
        occurrence(project, { hashes: ['b'], title: 'b', timestamp: base + 4, userKey: 'u2' }),
        occurrence(project, { hashes: ['a'], title: 'a', timestamp: base + 5 }),
        occurrence(project, { hashes: ['a'], title: 'a', timestamp: base + 6 }),
      ]);
      const pages = async (sort: IssueSort) => {
        const titles: string[][] = [];
        let cursor: string | undefined;
        do {
          const page = await store.listIssues({ projectId: project.id, sort, limit: 1, ...(cursor ? { cursor } : {}) });
          titles.push(page.items.map((i) => i.title));
          cursor = page.nextCursor;
        } while (cursor);
        return titles.flat();
      };
      expect(await pages('lastSeen')).toEqual(['a', 'b', 'd', 'c']);
      expect(await pages('firstSeen')).toEqual(['a', 'd', 'c', 'b']);
      expect(await pages('events')).toEqual(['a', 'b', 'd', 'c']);
      expect(await pages('users')).toEqual(['b', 'a', 'd', 'c']);
      // A cursor continues only the order it came from.
      const byEvents = await store.listIssues({ projectId: project.id, sort: 'events', limit: 1 });
      await expect(
        store.listIssues({ projectId: project.id, sort: 'users', limit: 1, cursor: byEvents.nextCursor }),
      ).rejects.toThrow(/pages issues by events, not users/);
      await expect(store.listIssues({ projectId: project.id, limit: 1, cursor: byEvents.nextCursor })).rejects.toBeInstanceOf(
        UserInputError,
      );
      // Both ways, the lastSeen cursor included: the refusal names the order the cursor came from.
      await expect(store.listIssues({ projectId: project.id, limit: 1, cursor: byEvents.nextCursor })).rejects.toThrow(
        'this cursor pages issues by events, not lastSeen: start again from the first page',
      );
      const byLastSeen = await store.listIssues({ projectId: project.id, limit: 1 });
      await expect(
        store.listIssues({ projectId: project.id, sort: 'firstSeen', limit: 1, cursor: byLastSeen.nextCursor }),
      ).rejects.toThrow('this cursor pages issues by lastSeen, not firstSeen: start again from the first page');
    });

    it('counts the issues a query matches and filters by last seen; lists the environments seen', async () => {
      const { project } = await orgWithProject();
      const base = 1_970_000_000;
      await store.recordOccurrences([
        occurrence(project, { hashes: ['old'], timestamp: base, environment: 'staging' }),
        occurrence(project, { hashes: ['new'], timestamp: base + 100, environment: 'production', level: 'warning' }),
        occurrence(project, { hashes: ['none'], timestamp: base + 200 }),
      ]);
      expect(await store.countIssues({ projectId: project.id })).toBe(3);
      expect(await store.countIssues({ projectId: project.id, level: 'warning' })).toBe(1);
      expect(await store.countIssues({ projectId: project.id, status: 'resolved' })).toBe(0);
      expect(await store.countIssues({ projectId: project.id, lastSeenSince: at(base + 100) })).toBe(2);
      const recent = await store.listIssues({ projectId: project.id, lastSeenSince: at(base + 101), limit: 10 });
      expect(recent.items.map((i) => i.title)).toHaveLength(1);
      expect(await store.listEnvironments(project.id, 10)).toEqual(['production', 'staging']);
      expect(await store.listEnvironments(project.id, 1)).toEqual(['production']);
      const { project: empty } = await orgWithProject();
      expect(await store.listEnvironments(empty.id, 10)).toEqual([]);
    });

    it('counts each recorded event once in its issue tag summary, commonest first, and forgets it with the issue', async () => {
      const { project } = await orgWithProject();
      const first = occurrence(project, { hashes: ['tagged'], tags: { browser: 'chrome', os: 'linux' } });
      const [a] = await store.recordOccurrences([
        first,
        occurrence(project, { hashes: ['tagged'], tags: { browser: 'chrome' } }),
        occurrence(project, { hashes: ['tagged'], tags: { browser: 'firefox', os: 'mac' } }),
        occurrence(project, { hashes: ['other'], tags: { browser: 'safari', zone: 'eu' } }),
      ]);
      await store.recordOccurrences([first]); // redelivered: counted once
      expect(await store.tagSummary(a!.issueId, 10, 10)).toEqual([
        {
          key: 'browser',
          total: 3,
          values: [
            { value: 'chrome', count: 2 },
            { value: 'firefox', count: 1 },
          ],
        },
        {
          key: 'os',
          total: 2,
          values: [
            { value: 'linux', count: 1 },
            { value: 'mac', count: 1 },
          ],
        },
      ]);
      expect(await store.tagSummary(a!.issueId, 1, 1)).toEqual([
        { key: 'browser', total: 3, values: [{ value: 'chrome', count: 2 }] },
      ]);
      await store.deleteIssues(project.id, [a!.issueId]);
      expect(await store.tagSummary(a!.issueId, 10, 10)).toEqual([]);
    });

    it('counts environment and release of an event with more tags than it counts, and 50 keys in all', async () => {
      const { project } = await orgWithProject();
      const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`a${String(i).padStart(2, '0')}`, 'x']));
      const [a] = await store.recordOccurrences([
        occurrence(project, { hashes: ['many tags'], tags: { ...many, environment: 'prod', release: 'web@1.0' } }),
      ]);
      const summary = await store.tagSummary(a!.issueId, 100, 10);
      expect(summary).toHaveLength(50);
      // Before, the first 50 keys in order (a00 to a49), and the issue's releases were never counted.
      expect(summary.filter((s) => s.key === 'environment' || s.key === 'release')).toEqual([
        { key: 'environment', total: 1, values: [{ value: 'prod', count: 1 }] },
        { key: 'release', total: 1, values: [{ value: 'web@1.0', count: 1 }] },
      ]);
    });

    it('lists issue outlines newest first, with only the metadata keys the issue has', async () => {
      const { project } = await orgWithProject();
      const { project: other } = await orgWithProject();
      const base = 1_980_000_000;
      await store.recordOccurrences([
        occurrence(project, {
          hashes: ['older'],
          timestamp: base,
          metadata: { type: 'TypeError', filename: 'a.js', function: 'load' },
        }),
        occurrence(project, { hashes: ['newer'], timestamp: base + 10, title: 'Message only', metadata: {} }),
        occurrence(project, { hashes: ['newer'], timestamp: base + 20, title: 'Message only', metadata: {} }),
        occurrence(other, { hashes: ['elsewhere'], timestamp: base + 30 }),
      ]);
      const outlines = await store.listIssueOutlines(project.id, 10);
      const full = (await store.listIssues({ projectId: project.id, status: 'all', limit: 10 })).items;
      expect(outlines).toEqual([
        { id: full[0]!.id, shortId: full[0]!.shortId, title: 'Message only', status: 'unresolved', count: 2, metadata: {} },
        {
          id: full[1]!.id,
          shortId: full[1]!.shortId,
          title: 'TypeError: x is undefined',
          status: 'unresolved',
          count: 1,
          metadata: { type: 'TypeError', filename: 'a.js', function: 'load' },
        },
      ]);
      expect(await store.listIssueOutlines(project.id, 1)).toHaveLength(1);
    });

    describe('issue lifecycle', () => {
      const record = (project: Project, overrides: Partial<Occurrence>) =>
        fixtures.recordOne(store, occurrence(project, overrides));

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
        expect((await store.getIssue(a.issueId))?.resolution).toEqual({
          resolvedAt: at(T + 20).toISOString(),
          by: 'alice',
          byKind: 'agent',
        });
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

      it('names the issues ignored, or snoozed past a time, as muted', async () => {
        const { project } = await orgWithProject();
        const [ignored, snoozed, open] = [
          await record(project, { hashes: ['m1'] }),
          await record(project, { hashes: ['m2'] }),
          await record(project, { hashes: ['m3'] }),
        ];
        await store.changeIssues(project.id, [ignored.issueId], change({ action: 'ignore' }, at(T + 10)));
        await store.changeIssues(project.id, [snoozed.issueId], change({ action: 'snooze', snoozeMinutes: 60 }, at(T + 10)));
        const ids = [ignored.issueId, snoozed.issueId, open.issueId];
        expect([...(await store.mutedIssues(ids, at(T + 20)))].sort()).toEqual([ignored.issueId, snoozed.issueId].sort());
        // Past its snooze's end, an issue the expiry job has not woken yet alerts again.
        expect([...(await store.mutedIssues(ids, at(T + 10 + 3601)))]).toEqual([ignored.issueId]);
        expect(await store.mutedIssues([], at(T))).toEqual(new Set());
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

        expect(await store.deleteIssues(project.id, [gone.issueId, theirs.issueId])).toEqual([gone.issueId]);
        expect(await store.findIssue(project.id, 1)).toBeUndefined();
        expect(await store.getIssue(gone.issueId)).toBeUndefined();
        expect(await store.listIssueActivity(gone.issueId, 10)).toEqual([]);
        expect(await store.getIssue(kept.issueId)).toBeDefined();
        expect(await store.getIssue(theirs.issueId)).toBeDefined();
        expect(await store.deleteIssues(project.id, [gone.issueId])).toEqual([]);
        expect(await store.deleteIssues(project.id, [])).toEqual([]);

        const reborn = await record(project, { hashes: ['gone-secondary'], timestamp: T + 20 });
        expect(reborn).toMatchObject({ isNewIssue: true, isRegression: false, shortId: 'WEB-3' });
        expect(reborn.issueId).not.toBe(gone.issueId);
        expect(await store.getIssue(reborn.issueId)).toMatchObject({ status: 'unresolved', count: 1, resolution: null });
      });

      it('deleteIssues remembers the issues it deleted until they are forgotten, oldest first', async () => {
        const { project } = await orgWithProject();
        const first = await record(project, { hashes: ['first'], timestamp: T });
        const second = await record(project, { hashes: ['second'], timestamp: T });
        const kept = await record(project, { hashes: ['kept'], timestamp: T });
        const before = new Date(Date.now() - 60_000);
        await store.deleteIssues(project.id, [first.issueId]);
        await new Promise((resolve) => setTimeout(resolve, 20));
        await store.deleteIssues(project.id, [second.issueId, second.issueId + 1_000_000]);
        const ours = async () =>
          (await store.listDeletedIssues(new Date(Date.now() + 60_000), 1000)).filter((d) => d.projectId === project.id);
        expect(await ours()).toEqual([
          { projectId: project.id, issueId: first.issueId },
          { projectId: project.id, issueId: second.issueId },
        ]);
        expect((await store.listDeletedIssues(before, 1000)).filter((d) => d.projectId === project.id)).toEqual([]);
        await store.forgetDeletedIssues([{ projectId: project.id, issueId: first.issueId }]);
        expect(await ours()).toEqual([{ projectId: project.id, issueId: second.issueId }]);
        expect((await ours()).map((d) => d.issueId)).not.toContain(kept.issueId);
        await store.forgetDeletedIssues([]);
      });

      it('deleteIssues keeps the counted event ids, so a redelivery says its issue is gone rather than bring it back', async () => {
        const { project } = await orgWithProject();
        const original = occurrence(project, { hashes: ['a'], timestamp: T });
        const [gone] = await store.recordOccurrences([original]);
        await store.deleteIssues(project.id, [gone!.issueId]);
        // A batch retried, or read again from the queue: it counted the event again, in a new issue.
        const [again] = await store.recordOccurrences([original]);
        expect(again).toMatchObject({ isDuplicate: true, issueDeleted: true, issueId: gone!.issueId });
        const before = await store.listIssues({ projectId: project.id, limit: 10, status: 'all' });
        expect(before.items).toEqual([]);
        // Another event of the same fingerprint is news: a new issue, as in Sentry.
        const [fresh] = await store.recordOccurrences([occurrence(project, { hashes: ['a'], timestamp: T + 1 })]);
        expect(fresh).toMatchObject({ isNewIssue: true, isDuplicate: false });
        expect(fresh).not.toHaveProperty('issueDeleted');
        expect((await store.getIssue(fresh!.issueId))?.count).toBe(1);
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

        const ids = async (query: Partial<Parameters<IssueStore['listIssues']>[0]>) =>
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

    it('finds a release of its project by version, with when it was first and last seen', async () => {
      const { project } = await orgWithProject();
      const { project: other } = await orgWithProject();
      await store.recordOccurrences([
        occurrence(project, { release: 'web@3', timestamp: T + 20 }),
        occurrence(project, { release: 'web@3', timestamp: T + 10 }),
      ]);
      const release = await store.findRelease(project.id, 'web@3');
      expect(release).toMatchObject({ projectId: project.id, version: 'web@3' });
      expect(release!.lastSeen.getTime()).toBeGreaterThanOrEqual(release!.firstSeen.getTime());
      expect(await store.findRelease(project.id, 'web@4')).toBeUndefined();
      expect(await store.findRelease(other.id, 'web@3')).toBeUndefined();
    });

    it('counts the events, new issues and regressions of releases, and lists the issues resolved in a release', async () => {
      const { project } = await orgWithProject();
      const { project: other } = await orgWithProject();
      const tagged = (release: string) => ({ release, tags: { release } });
      const a = await fixtures.recordOne(store, occurrence(project, { hashes: ['a'], timestamp: T, ...tagged('shop@1.0') }));
      await fixtures.recordOne(store, occurrence(project, { hashes: ['a'], timestamp: T + 1, ...tagged('shop@1.0') }));
      const b = await fixtures.recordOne(
        store,
        occurrence(project, { hashes: ['b'], timestamp: T + 2, ...tagged('shop/2 beta') }),
      );
      await fixtures.recordOne(store, occurrence(other, { hashes: ['a'], timestamp: T, ...tagged('shop@1.0') }));
      await store.changeIssues(project.id, [a.issueId], change({ action: 'resolve', release: 'shop@1.0' }, at(T + 10)));
      await store.changeIssues(project.id, [b.issueId], change({ action: 'resolve', release: 'shop/2 beta' }, at(T + 10)));
      await fixtures.recordOne(store, occurrence(project, { hashes: ['a'], timestamp: T + 20, ...tagged('shop/2 beta') }));

      const counts = await store.releaseCounts(project.id, ['shop@1.0', 'shop/2 beta', 'never']);
      expect(Object.fromEntries(counts)).toEqual({
        'shop@1.0': { events: 2, newIssues: 1, regressions: 0 },
        'shop/2 beta': { events: 2, newIssues: 1, regressions: 1 },
        never: { events: 0, newIssues: 0, regressions: 0 },
      });
      expect(await store.releaseCounts(project.id, [])).toEqual(new Map());

      const resolvedIn = async (release: string, projectId = project.id) =>
        (await store.listIssues({ projectId, limit: 10, status: 'all', resolvedInRelease: release })).items.map((i) => i.id);
      // The regressed issue keeps its marker, so it still counts as resolved in shop@1.0.
      expect(await resolvedIn('shop@1.0')).toEqual([a.issueId]);
      expect(await resolvedIn('shop/2 beta')).toEqual([b.issueId]);
      expect(await resolvedIn('never')).toEqual([]);
      expect(await resolvedIn('shop@1.0', other.id)).toEqual([]);
      expect(await store.countIssues({ projectId: project.id, status: 'resolved', resolvedInRelease: 'shop@1.0' })).toBe(0);
    });

    // Last: it forgets every counted event id in the database, as retention does.
    it('forgets counted event ids received before the cutoff, so only those count again', async () => {
      const { project } = await orgWithProject();
      const first = occurrence(project, { hashes: ['retained'] });
      const [recorded] = await store.recordOccurrences([first]);
      const received = Date.now() / 1000;
      expect(await store.forgetProcessedEventsBefore(received - 3600)).toBe(0);
      expect((await store.recordOccurrences([first]))[0]).toMatchObject({ isDuplicate: true });

      // A slice at a time, until none is left.
      const more = [1, 2, 3, 4].map(() => occurrence(project, { hashes: ['retained'] }));
      await store.recordOccurrences(more);
      expect(await store.forgetProcessedEventsBefore(received + 3600, 2)).toBeGreaterThanOrEqual(5);
      expect((await store.recordOccurrences(more)).map((r) => r.isDuplicate)).toEqual([false, false, false, false]);
      expect(await store.forgetProcessedEventsBefore(received + 3600)).toBeGreaterThanOrEqual(4);
      const [again] = await store.recordOccurrences([first]);
      expect(again).toMatchObject({ isDuplicate: false, issueId: recorded!.issueId, countBefore: 9, countAfter: 10 });
    });
  });
}
