// The SourceMapIndex contract (bundle assemblies and the source map index; a slice of the
// MetadataStore): every adapter must pass these tests, run against the real database, with a
// TenancyStore over the same database for the projects the bundles belong to.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SourceMapIndex } from '../../core/ports/source-map-index.ts';
import type { TenancyStore } from '../../core/ports/tenancy-store.ts';
import * as fixtures from './metadata-fixtures.ts';

export function describeSourceMapIndexContract(
  name: string,
  open: () => Promise<{ sourceMaps: SourceMapIndex; tenancy: TenancyStore }>,
): void {
  describe(`SourceMapIndex contract: ${name}`, () => {
    let store: SourceMapIndex;
    let tenancy: TenancyStore;
    beforeAll(async () => {
      ({ sourceMaps: store, tenancy } = await open());
    });
    const orgWithProject = (slug?: string) => fixtures.orgWithProject(tenancy, slug);

    it('claims an assembly once, until it finishes or goes stale, and indexes artifacts by Debug ID', async () => {
      const { project } = await orgWithProject();
      const checksum = 'a'.repeat(40);
      const longAgo = new Date(Date.now() - 3_600_000);
      expect(await store.getAssembly(project.id, checksum)).toBeUndefined();
      expect(await store.claimAssembly(project.id, checksum, longAgo, longAgo)).toBe(true);
      expect(await store.claimAssembly(project.id, checksum, longAgo, longAgo)).toBe(false);
      expect((await store.getAssembly(project.id, checksum))?.state).toBe('assembling');
      // An assembly that stopped updating before the cutoff may be taken over.
      const later = new Date(Date.now() + 60_000);
      expect(await store.claimAssembly(project.id, checksum, later, longAgo)).toBe(true);
      await store.finishAssembly(project.id, checksum, 'error', 'bad zip');
      expect(await store.getAssembly(project.id, checksum)).toMatchObject({ state: 'error', detail: 'bad zip' });
      expect(await store.claimAssembly(project.id, checksum, later, longAgo)).toBe(false);
      // A failure before `failedBefore` is assembled again.
      expect(await store.claimAssembly(project.id, checksum, longAgo, later)).toBe(true);
      expect(await store.getAssembly(project.id, checksum)).toMatchObject({ state: 'assembling', detail: null });

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
      const listed = await store.listSourceMapArtifacts(project.id, { limit: 10 });
      expect(listed.map((a) => [a.type, a.url, a.sizeBytes])).toEqual(
        expect.arrayContaining([
          ['source_map', '~/v2/app.js.map', 5_000_000_000],
          ['minified_source', '~/app.js', 5_000_000_000],
        ]),
      );
      expect(listed).toHaveLength(2);
      expect(await store.countSourceMapArtifacts(project.id)).toBe(2);
      expect(await store.listSourceMapArtifacts(project.id, { limit: 1 })).toHaveLength(1);
      const other = { ...artifact, debugId: '254733b7-3a40-544e-9fd4-e3454f09847d' };
      await store.saveSourceMapArtifacts([other]);
      const ofOne = await store.listSourceMapArtifacts(project.id, { limit: 10, debugId: other.debugId });
      expect(ofOne.map((a) => [a.debugId, a.type])).toEqual([[other.debugId, 'source_map']]);
      await store.deleteSourceMapArtifacts([other]);
      expect(await store.listSourceMapArtifacts(project.id + 1000, { limit: 10 })).toEqual([]);
      expect(await store.countSourceMapArtifacts(project.id + 1000)).toBe(0);
      expect((await store.findSourceMapArtifact(project.id, artifact.debugId, 'source_map'))?.url).toBe('~/v2/app.js.map');
      expect(await store.findSourceMapArtifact(project.id, artifact.debugId.replace('1', '2'), 'source_map')).toBeUndefined();
      await store.touchSourceMapArtifacts(project.id, [artifact.debugId], new Date(Date.now() + 3_600_000));
      const soon = new Date(Date.now() + 60_000);
      const unused = (await store.listSourceMapArtifactsUnusedSince(soon, 100)).filter((a) => a.projectId === project.id);
      expect(unused).toEqual([]);
      await store.deleteSourceMapArtifacts([
        { projectId: project.id, debugId: artifact.debugId, type: 'minified_source', blobKey: artifact.blobKey },
      ]);
      expect((await store.listSourceMapArtifacts(project.id, { limit: 10 })).map((a) => a.type)).toEqual(['source_map']);
      await store.forgetAssemblies(project.id, [checksum]);
      expect(await store.getAssembly(project.id, checksum)).toBeUndefined();
    });

    it('answers the files an upload replaced, and deletes an entry only while it points at the file named', async () => {
      const { project } = await orgWithProject();
      const map = {
        projectId: project.id,
        debugId: '164733b7-3a40-544e-9fd4-e3454f09847d',
        type: 'source_map' as const,
        url: '~/a.js.map',
        sizeBytes: 10,
        bundleChecksum: 'd'.repeat(40),
      };
      const key = (n: number) => `projects/${project.id}/maps/${map.debugId}/source_map.${n}.gz`;
      expect(await store.saveSourceMapArtifacts([{ ...map, blobKey: key(1) }])).toEqual([]);
      expect(await store.saveSourceMapArtifacts([{ ...map, blobKey: key(1) }])).toEqual([]);
      const minified = { ...map, type: 'minified_source' as const, url: '~/a.js', blobKey: key(9) };
      expect(await store.saveSourceMapArtifacts([{ ...map, blobKey: key(2) }, minified])).toEqual([key(1)]);
      // Retention (or a delete) read the entry of key 2; an upload replaced it meanwhile: the new one stays.
      expect(await store.saveSourceMapArtifacts([{ ...map, blobKey: key(3) }])).toEqual([key(2)]);
      await store.deleteSourceMapArtifacts([{ ...map, blobKey: key(2) }]);
      expect((await store.findSourceMapArtifact(project.id, map.debugId, 'source_map'))?.blobKey).toBe(key(3));
      // Two uploads at once: each answers the file it replaced, so every file but the last is let go.
      const both = await Promise.all([4, 5].map((n) => store.saveSourceMapArtifacts([{ ...map, blobKey: key(n) }])));
      const kept = (await store.findSourceMapArtifact(project.id, map.debugId, 'source_map'))!.blobKey;
      expect([...both.flat(), kept].sort()).toEqual([key(3), key(4), key(5)]);
      await store.deleteSourceMapArtifacts([{ ...map, blobKey: kept }, minified]);
      expect(await store.listSourceMapArtifacts(project.id, { limit: 10 })).toEqual([]);
      // Two first uploads of a Debug ID at once: the second answers the first one's key, not nothing.
      const fresh = { ...map, debugId: '174733b7-3a40-544e-9fd4-e3454f09847d' };
      const firsts = await Promise.all([6, 7].map((n) => store.saveSourceMapArtifacts([{ ...fresh, blobKey: key(n) }])));
      const won = (await store.findSourceMapArtifact(project.id, fresh.debugId, 'source_map'))!.blobKey;
      expect([...firsts.flat(), won].sort()).toEqual([key(6), key(7)]);
    });

    it('counts a map uploaded again as unused from its new upload, not from the replaced one', async () => {
      const { project } = await orgWithProject();
      const map = {
        projectId: project.id,
        debugId: '184733b7-3a40-544e-9fd4-e3454f09847d',
        type: 'source_map' as const,
        url: '~/a.js.map',
        blobKey: 'projects/x/maps/a.gz',
        sizeBytes: 10,
        bundleChecksum: 'e'.repeat(40),
      };
      await store.saveSourceMapArtifacts([map]);
      await store.touchSourceMapArtifacts(project.id, [map.debugId], new Date('2020-01-01T00:00:00Z'));
      const unused = async () =>
        (await store.listSourceMapArtifactsUnusedSince(new Date(Date.now() - 60_000), 1000)).filter(
          (a) => a.projectId === project.id,
        );
      expect((await unused()).map((a) => a.blobKey)).toEqual([map.blobKey]);
      // Before, the new upload kept the old one's last use, and retention deleted it with the entry it had listed.
      await store.saveSourceMapArtifacts([{ ...map, blobKey: 'projects/x/maps/b.gz' }]);
      expect(await unused()).toEqual([]);
    });

    it('keeps a running assembly from going stale while it is marked running, and nothing else', async () => {
      const { project } = await orgWithProject();
      const running = 'b'.repeat(40);
      const finished = 'c'.repeat(40);
      const longAgo = new Date(Date.now() - 3_600_000);
      expect(await store.claimAssembly(project.id, running, longAgo, longAgo)).toBe(true);
      expect(await store.claimAssembly(project.id, finished, longAgo, longAgo)).toBe(true);
      await store.finishAssembly(project.id, finished, 'ok', null);
      const before = (await store.getAssembly(project.id, running))!.updatedAt;
      await new Promise((resolve) => setTimeout(resolve, 20));
      const marked = new Date();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.keepAssembling(project.id, running);
      await store.keepAssembling(project.id, finished);
      expect((await store.getAssembly(project.id, running))!.updatedAt.getTime()).toBeGreaterThan(before.getTime());
      // Stale means not marked since `staleBefore`: this one was, so it is not claimed again.
      expect(await store.claimAssembly(project.id, running, marked, longAgo)).toBe(false);
      expect(await store.getAssembly(project.id, finished)).toMatchObject({ state: 'ok' });
      expect((await store.getAssembly(project.id, finished))!.updatedAt.getTime()).toBeLessThan(marked.getTime());
    });

    it('forgets assemblies updated before a cutoff that no indexed file came from', async () => {
      const { project } = await orgWithProject();
      const checksum = (digit: string) => digit.repeat(40);
      const [failed, dead, indexed, replaced, recent] = [
        checksum('1'),
        checksum('2'),
        checksum('3'),
        checksum('4'),
        checksum('5'),
      ];
      const longAgo = new Date(Date.now() - 3_600_000);
      for (const checksum of [failed, dead, indexed, replaced]) {
        expect(await store.claimAssembly(project.id, checksum, longAgo, longAgo)).toBe(true);
      }
      await store.finishAssembly(project.id, failed, 'error', 'bad zip');
      const artifact = {
        projectId: project.id,
        debugId: '354733b7-3a40-544e-9fd4-e3454f09847d',
        type: 'source_map' as const,
        url: '~/app.js.map',
        blobKey: 'projects/1/maps/y/source_map.gz',
        sizeBytes: 10,
      };
      // `replaced` stored the map first; `indexed` stored it again, so only `indexed` has a file.
      await store.saveSourceMapArtifacts([{ ...artifact, bundleChecksum: replaced }]);
      await store.finishAssembly(project.id, replaced, 'ok', null);
      await store.saveSourceMapArtifacts([{ ...artifact, bundleChecksum: indexed }]);
      await store.finishAssembly(project.id, indexed, 'ok', null);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const cutoff = new Date();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.claimAssembly(project.id, recent, longAgo, longAgo)).toBe(true);
      await store.finishAssembly(project.id, recent, 'error', 'bad zip');

      expect(await store.forgetAssembliesBefore(cutoff)).toBeGreaterThanOrEqual(3);
      const states = await Promise.all([failed, dead, indexed, replaced, recent].map((c) => store.getAssembly(project.id, c)));
      expect(states.map((state) => state?.state)).toEqual([undefined, undefined, 'ok', undefined, 'error']);
    });
  });
}
