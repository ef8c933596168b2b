// The MetadataStore contract: every adapter (PGlite, Postgres) must pass these tests, run
// against the real database. It is the contracts of the port's five slices, each run against
// the whole store, then what holds across the slices: the store answers every method of the
// port, and text is stored the same way in all of them. A narrow implementation of one slice
// is held to that slice's contract alone.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Occurrence } from '../../core/issues/occurrence.ts';
import type { MetadataStore, Project } from '../../core/ports/metadata-store.ts';
import { describeAgentActivityStoreContract } from './agent-activity-store.contract.ts';
import { describeIssueStoreContract } from './issue-store.contract.ts';
import * as fixtures from './metadata-fixtures.ts';
import { at, change, T, unique } from './metadata-fixtures.ts';
import { describeSourceMapIndexContract } from './source-map-index.contract.ts';
import { describeTenancyStoreContract } from './tenancy-store.contract.ts';
import { describeTokenStoreContract } from './token-store.contract.ts';

// Every method of the port, kept complete by the compiler (a Record of all its keys): the
// composed store must answer each, from whichever slice holds it.
const METHODS: Record<keyof MetadataStore, true> = {
  ensureOrganization: true,
  findOrganization: true,
  getOrganization: true,
  listOrganizations: true,
  createProject: true,
  findProject: true,
  getProject: true,
  listProjects: true,
  deleteProject: true,
  listDeletedProjects: true,
  forgetDeletedProject: true,
  setProjectRateLimit: true,
  renameProject: true,
  listProjectKeys: true,
  createProjectKey: true,
  setProjectKeyActive: true,
  findProjectKey: true,
  getGroupingRules: true,
  setGroupingRules: true,
  createAgentToken: true,
  findAgentToken: true,
  revokeAgentToken: true,
  listAgentTokens: true,
  markAgentTokenUsed: true,
  createUploadToken: true,
  findUploadToken: true,
  revokeUploadToken: true,
  listUploadTokens: true,
  recordAgentCalls: true,
  listAgentCalls: true,
  countAgentCallsSince: true,
  deleteAgentCallsBefore: true,
  claimAssembly: true,
  finishAssembly: true,
  getAssembly: true,
  forgetAssemblies: true,
  forgetAssembliesBefore: true,
  keepAssembling: true,
  saveSourceMapArtifacts: true,
  listSourceMapArtifacts: true,
  countSourceMapArtifacts: true,
  findSourceMapArtifact: true,
  listSourceMapArtifactsUnusedSince: true,
  deleteSourceMapArtifacts: true,
  touchSourceMapArtifacts: true,
  recordOccurrences: true,
  listIssues: true,
  countIssues: true,
  listEnvironments: true,
  listIssueOutlines: true,
  tagSummary: true,
  findIssue: true,
  getIssue: true,
  mutedIssues: true,
  changeIssues: true,
  deleteIssues: true,
  listDeletedIssues: true,
  forgetDeletedIssues: true,
  listIssueActivity: true,
  expireSnoozes: true,
  listReleases: true,
  countReleases: true,
  findRelease: true,
  releaseCounts: true,
  forgetProcessedEventsBefore: true,
  ping: true,
};

export function describeMetadataStoreContract(name: string, open: () => Promise<MetadataStore>): void {
  describeTenancyStoreContract(name, open);
  describeTokenStoreContract(name, async () => {
    const store = await open();
    return { tokens: store, tenancy: store };
  });
  describeAgentActivityStoreContract(name, async () => {
    const store = await open();
    return { activity: store, tenancy: store };
  });
  describeSourceMapIndexContract(name, async () => {
    const store = await open();
    return { sourceMaps: store, tenancy: store };
  });
  describeIssueStoreContract(name, async () => {
    const store = await open();
    return { issues: store, tenancy: store };
  });

  describe(`MetadataStore contract, across its slices: ${name}`, () => {
    let store: MetadataStore;
    beforeAll(async () => {
      store = await open();
    });
    const orgWithProject = (slug?: string) => fixtures.orgWithProject(store, slug);
    const occurrence = fixtures.occurrenceMaker();
    const record = (project: Project, overrides: Partial<Occurrence>) =>
      fixtures.recordOne(store, occurrence(project, overrides));

    it('answers every method of the port', () => {
      const missing = Object.keys(METHODS).filter((method) => typeof store[method as keyof MetadataStore] !== 'function');
      expect(missing).toEqual([]);
    });

    it('deletes a project with its keys, issues, tokens and rules, frees its slug, and lists it as deleted until forgotten', async () => {
      const { org, project } = await orgWithProject('doomed');
      const [first] = await store.listProjectKeys(project.id);
      const second = await store.createProjectKey(project.id, { publicKey: unique() + unique(), label: 'Second' });
      const { project: kept } = await store.createProject(
        { organizationId: org.id, slug: 'kept', name: 'Kept' },
        { publicKey: unique() + unique(), label: 'Default' },
      );
      const gone = await record(project, { hashes: ['gone'] });
      // More issues than the store deletes at once.
      await store.recordOccurrences(Array.from({ length: 1000 }, (_, i) => occurrence(project, { hashes: [`many-${i}`] })));
      const stays = await record(kept, { hashes: ['stays'] });
      const agentHash = unique();
      await store.createAgentToken({
        organizationId: org.id,
        projectId: project.id,
        name: 'scoped',
        role: 'read',
        tokenHash: agentHash,
      });
      const uploadHash = unique();
      await store.createUploadToken({ organizationId: org.id, projectId: project.id, name: 'ci', tokenHash: uploadHash });
      await store.setGroupingRules(project.id, { fingerprintRules: 'type:TypeError -> type-error' });

      const deletedAt = at(T);
      const deleted = await store.deleteProject(project.id, deletedAt);
      expect(deleted?.publicKeys.sort()).toEqual([first!.publicKey, second.publicKey].sort());
      expect(await store.getProject(project.id)).toBeUndefined();
      expect(await store.findProjectKey(second.publicKey)).toBeUndefined();
      expect(await store.getIssue(gone.issueId)).toBeUndefined();
      expect(await store.countIssues({ projectId: project.id, status: 'all' })).toBe(0);
      expect((await store.getIssue(stays.issueId))?.projectId).toBe(kept.id);
      expect(await store.findAgentToken(agentHash)).toBeUndefined();
      expect(await store.findUploadToken(uploadHash)).toBeUndefined();
      expect((await store.listProjects(org.id)).map((p) => p.slug)).toEqual(['kept']);
      expect(await store.deleteProject(project.id, deletedAt)).toBeUndefined();
      // An event of the project still on its way counts nowhere.
      expect(await store.recordOccurrences([occurrence(project, { hashes: ['late'] })])).toEqual([]);

      // The slug is free at once, for a project of its own.
      const { project: again } = await store.createProject(
        { organizationId: org.id, slug: 'doomed', name: 'Again' },
        { publicKey: unique() + unique(), label: 'Default' },
      );
      expect(again.id).not.toBe(project.id);
      expect(await store.getGroupingRules(again.id)).toEqual({ fingerprintRules: '', stackTraceRules: '' });

      const listed = async (before: Date) =>
        (await store.listDeletedProjects(before, 1000)).filter((d) => d.projectId === project.id);
      expect(await listed(at(T + 1))).toEqual([{ projectId: project.id, organizationId: org.id, slug: 'doomed', deletedAt }]);
      expect(await listed(deletedAt)).toEqual([]);
      await store.forgetDeletedProject(project.id);
      expect(await listed(at(T + 1))).toEqual([]);
    });

    it('deletes a project while batches record events in its issues and some of them are deleted: all finish, none deadlocks', async () => {
      for (let round = 0; round < 5; round++) {
        const { project } = await orgWithProject();
        const hashes = Array.from({ length: 100 }, (_, i) => `h${i}`);
        const issueIds = (await store.recordOccurrences(hashes.map((hash) => occurrence(project, { hashes: [hash] })))).map(
          (r) => r.issueId,
        );
        // Each batch locks the issues it counts in, then records a release of the project.
        const batch = (release: string) =>
          store.recordOccurrences(hashes.map((hash) => occurrence(project, { hashes: [hash], release })));
        const settled = await Promise.allSettled([
          batch('1.0'),
          store.deleteIssues(project.id, issueIds.slice(0, 50)),
          batch('1.1'),
          store.deleteProject(project.id, at(T)),
          store.deleteIssues(project.id, issueIds.slice(50)),
          batch('1.2'),
        ]);
        expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
        expect(await store.getProject(project.id)).toBeUndefined();
        expect(await store.recordOccurrences([occurrence(project)])).toEqual([]);
      }
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
  });
}
