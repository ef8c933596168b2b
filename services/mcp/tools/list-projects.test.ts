import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_TIMEOUT_MS, openToolHarness, type ToolHarness } from '../../../test/support/tool-harness.ts';

let h: ToolHarness;
beforeAll(async () => {
  h = await openToolHarness();
}, OPEN_TIMEOUT_MS);
afterAll(() => h.close());

const slugs = (structured: Record<string, any>) => structured.projects.map((p: { slug: string }) => p.slug);

describe('list_projects', () => {
  it('shows an organization-wide token of any role every project of its organization', async () => {
    for (const name of ['read', 'triage', 'admin'] as const) {
      const { isError, structured, text } = await h.call(name, 'list_projects');
      expect(isError, text).toBe(false);
      expect(structured.organization).toBe('default');
      expect(slugs(structured).sort()).toEqual(['shop', 'web']);
      expect(text).toContain('2 projects');
    }
    const { web } = h.projects;
    const listed = (await h.call('read', 'list_projects')).structured.projects.find((p: { slug: string }) => p.slug === 'web');
    expect(listed).toEqual({ slug: 'web', name: 'web', id: web.id, dateCreated: web.createdAt.toISOString() });
  });

  it('shows a project-scoped token only its own project', async () => {
    for (const name of ['readWeb', 'triageWeb', 'adminWeb'] as const) {
      const { structured, text } = await h.call(name, 'list_projects');
      expect(structured.projects.map((p: { id: number }) => p.id)).toEqual([h.projects.web.id]);
      expect(text).not.toContain('shop');
    }
  });

  it("never shows another organization's projects, even of the same slug", async () => {
    const { structured } = await h.call('other', 'list_projects');
    expect(structured).toMatchObject({ organization: 'other-org' });
    expect(structured.projects.map((p: { id: number }) => p.id)).toEqual([h.projects.otherWeb.id]);
  });

  it('refuses an argument by name', async () => {
    const refused = await h.call('read', 'list_projects', { organization: 'other-org' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('unknown key "organization"');
  });

  it('returns project names, which administrators chose, without an untrusted-data envelope', async () => {
    expect((await h.call('admin', 'list_projects')).text).not.toContain('<untrusted-data>');
  });
});
