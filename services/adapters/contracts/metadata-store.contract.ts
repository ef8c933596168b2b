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
  setProjectRateLimit: true,
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
