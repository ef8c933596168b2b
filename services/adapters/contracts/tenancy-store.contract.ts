// The TenancyStore contract (organizations, projects, DSN keys; a slice of the MetadataStore):
// every adapter must pass these tests, run against the real database. Each test works in an
// organization of its own, so suites can share one database without cleaning up.
import { beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.ts';
import type { TenancyStore } from '../../core/ports/tenancy-store.ts';
import { unique } from './metadata-fixtures.ts';

export function describeTenancyStoreContract(name: string, open: () => Promise<TenancyStore>): void {
  describe(`TenancyStore contract: ${name}`, () => {
    let store: TenancyStore;
    beforeAll(async () => {
      store = await open();
    });

    it('creates the organization once, however often it is ensured', async () => {
      const slug = `org-${unique()}`;
      const first = await store.ensureOrganization(slug, 'First');
      const second = await store.ensureOrganization(slug, 'Second');
      expect(second.id).toBe(first.id);
      expect((await store.findOrganization(slug))?.name).toBe('First');
      expect((await store.listOrganizations()).some((o) => o.slug === slug)).toBe(true);
    });

    it('gets an organization by its id, and none for an id no organization has', async () => {
      const org = await store.ensureOrganization(`org-${unique()}`, 'By Id');
      const other = await store.ensureOrganization(`org-${unique()}`, 'Other');
      expect(await store.getOrganization(org.id)).toEqual(org);
      expect(await store.getOrganization(other.id)).toEqual(other);
      // Ids count from 1; another suite sharing the database cannot make 0 exist.
      expect(await store.getOrganization(0)).toBeUndefined();
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

    it('adds a second DSN key to a project, active, listed after the first and found by its public key', async () => {
      const org = await store.ensureOrganization(`org-${unique()}`, 'Org');
      const first = unique() + unique();
      const { project } = await store.createProject(
        { organizationId: org.id, slug: 'web', name: 'Web' },
        { publicKey: first, label: 'Default' },
      );
      const second = unique() + unique();
      const key = await store.createProjectKey(project.id, { publicKey: second, label: 'Mobile app' });
      expect(key).toMatchObject({ projectId: project.id, publicKey: second, label: 'Mobile app', active: true });
      expect(key.createdAt).toBeInstanceOf(Date);
      expect((await store.listProjectKeys(project.id)).map((k) => k.publicKey)).toEqual([first, second]);
      expect((await store.findProjectKey(second))?.project.id).toBe(project.id);
      expect((await store.setProjectKeyActive(second, false))?.active).toBe(false);
      expect((await store.listProjectKeys(project.id)).map((k) => k.active)).toEqual([true, false]);
    });

    it('renames a project, keeping its slug and keys; none for an id no project has', async () => {
      const org = await store.ensureOrganization(`org-${unique()}`, 'Org');
      const publicKey = unique() + unique();
      const { project } = await store.createProject(
        { organizationId: org.id, slug: 'shop', name: 'Shop' },
        { publicKey, label: 'Default' },
      );
      const renamed = await store.renameProject(project.id, 'Shop Frontend');
      expect(renamed).toEqual({ ...project, name: 'Shop Frontend' });
      expect(await store.findProject(org.id, 'shop')).toEqual(renamed);
      expect((await store.findProjectKey(publicKey))?.project.name).toBe('Shop Frontend');
      expect(await store.renameProject(0, 'Nothing')).toBeUndefined();
    });

    it("keeps a project's grouping rules verbatim, replacing only the text given", async () => {
      const org = await store.ensureOrganization(`org-${unique()}`, 'Org');
      const { project } = await store.createProject(
        { organizationId: org.id, slug: 'rules', name: 'Rules' },
        { publicKey: unique() + unique(), label: 'Default' },
      );
      expect(await store.getGroupingRules(project.id)).toEqual({ fingerprintRules: '', stackTraceRules: '' });
      const fingerprintRules =
        '# ours\nerror.type:DatabaseUnavailable -> system-down\n\n  message:"a \\"b\\"" -> {{ default }}  ';
      expect(await store.setGroupingRules(project.id, { fingerprintRules })).toEqual({ fingerprintRules, stackTraceRules: '' });
      await store.setGroupingRules(project.id, { stackTraceRules: 'stack.function:panic_handler -app' });
      expect(await store.getGroupingRules(project.id)).toEqual({
        fingerprintRules,
        stackTraceRules: 'stack.function:panic_handler -app',
      });
      await store.setGroupingRules(project.id, { fingerprintRules: '' });
      expect(await store.getGroupingRules(project.id)).toEqual({
        fingerprintRules: '',
        stackTraceRules: 'stack.function:panic_handler -app',
      });
    });
  });
}
