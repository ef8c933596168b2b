import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, OPEN_TIMEOUT_MS, openToolHarness, type ToolHarness } from '../../../test/support/tool-harness.ts';

let h: ToolHarness;
beforeAll(async () => {
  h = await openToolHarness();
}, OPEN_TIMEOUT_MS);
afterAll(() => h.close());

const projectsOf = async (organizationId: number) => (await h.stores.metadata.listProjects(organizationId)).map((p) => p.slug);

describe('create_project', () => {
  it('creates a project and its first DSN key for an organization-wide admin', async () => {
    const { isError, structured, text } = await h.call('admin', 'create_project', { name: 'Billing API', platform: 'node' });
    expect(isError, text).toBe(false);
    const project = await h.stores.metadata.findProject(h.organizations.default.id, 'billing-api');
    expect(project).toBeDefined();
    const [key] = await h.stores.metadata.listProjectKeys(project!.id);
    expect(structured).toEqual({
      project: { slug: 'billing-api', name: 'Billing API', id: project!.id, organization: 'default' },
      dsn: `https://${key!.publicKey}@errata.test/${project!.id}`,
      installGuide: `${BASE_URL}/api/v1/organizations/default/projects/billing-api/install/node.md`,
      installGuides: {
        node: `${BASE_URL}/api/v1/organizations/default/projects/billing-api/install/node.md`,
        python: `${BASE_URL}/api/v1/organizations/default/projects/billing-api/install/python.md`,
        browser: `${BASE_URL}/api/v1/organizations/default/projects/billing-api/install/browser.md`,
      },
    });
    expect(text).toContain(structured.dsn);
  });

  it('takes a slug of its own, and gives every install guide without a platform or with one that has none', async () => {
    const { structured } = await h.call('admin', 'create_project', { name: 'Anything', slug: 'jobs' });
    expect(structured.project).toMatchObject({ slug: 'jobs', name: 'Anything' });
    expect(structured.installGuide).toBeNull();
    expect(structured.installGuides.python).toBe(`${BASE_URL}/api/v1/organizations/default/projects/jobs/install/python.md`);
    const go = await h.call('admin', 'create_project', { name: 'Worker', platform: 'go' });
    expect(go.structured.installGuide).toBeNull();
    expect(Object.keys(go.structured.installGuides)).toEqual(['node', 'python', 'browser']);
    expect(go.structured.installGuides.node).toBe(`${BASE_URL}/api/v1/organizations/default/projects/worker/install/node.md`);
  });

  it('is refused to read and triage tokens and to project-scoped admins, before anything is made', async () => {
    for (const name of ['read', 'triage', 'readWeb', 'triageWeb'] as const) {
      const refused = await h.call(name, 'create_project', { name: `By ${name}` });
      expect(refused.isError).toBe(true);
      expect(refused.text).toBe(
        `forbidden: create_project needs a token with role admin or higher; this token has role ${h.tokens[name].role}. ` +
          'An administrator mints one with: errata createtoken --role admin --organization default',
      );
    }
    const scoped = await h.call('adminWeb', 'create_project', { name: 'By adminWeb' });
    expect(scoped.text).toBe(
      'forbidden: create_project needs an organization-wide admin token; this token is scoped to project web. ' +
        'An administrator mints one with: errata createtoken --role admin --organization default',
    );
    expect((await projectsOf(h.organizations.default.id)).filter((slug) => slug.startsWith('by-'))).toEqual([]);
  });

  it("creates in the token's own organization only", async () => {
    const { structured } = await h.call('other', 'create_project', { name: 'Shop' });
    expect(structured.project).toMatchObject({ slug: 'shop', organization: 'other-org' });
    expect(structured.project.id).not.toBe(h.projects.shop.id);
    expect((await projectsOf(h.organizations.other.id)).sort()).toEqual(['shop', 'web']);
  });

  it('says what was wrong with a bad name, slug or platform, and a slug already taken', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'Ok', slug: 'Not A Slug' }, 'invalid_input: invalid slug "Not A Slug": use 1-50 lowercase letters'],
      [{ name: '!!!' }, 'invalid slug derived from the name (give a slug of its own) "": use 1-50 lowercase letters'],
      [{ name: 'Web', slug: 'web' }, 'conflict: a project with slug "web" already exists'],
      [{ name: '' }, 'Invalid arguments for tool create_project: Too small: expected string to have >=1 characters at name'],
      // The core's words name no CLI flag.
      [{ name: '   ' }, 'invalid_input: a project needs a name of 1 to 100 characters'],
      [
        { name: 'Ok', platform: 'cobol' },
        'Invalid option: expected one of "javascript-browser"|"node"|"python"|"go"|"php"|"ruby"|"other" at platform',
      ],
    ];
    for (const [args, message] of cases) {
      const refused = await h.call('admin', 'create_project', args);
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(refused.text, JSON.stringify(args)).toContain(message);
    }
    expect((await projectsOf(h.organizations.default.id)).sort()).toEqual(['billing-api', 'jobs', 'shop', 'web', 'worker']);
  });
});
