import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_TIMEOUT_MS, openToolHarness, type ToolHarness } from '../../../test/support/tool-harness.ts';

let h: ToolHarness;
beforeAll(async () => {
  h = await openToolHarness();
}, OPEN_TIMEOUT_MS);
afterAll(() => h.close());

const dsnOf = async (projectId: number) => {
  const [key] = await h.stores.metadata.listProjectKeys(projectId);
  return `https://${key!.publicKey}@errata.test/${projectId}`;
};

describe('get_dsn', () => {
  it("gives an admin the project's DSN and its keys", async () => {
    const dsn = await dsnOf(h.projects.web.id);
    for (const name of ['admin', 'adminWeb'] as const) {
      const { isError, structured, text } = await h.call(name, 'get_dsn', { project: 'web' });
      expect(isError, text).toBe(false);
      expect(structured).toEqual({ project: 'web', dsn, keys: [{ label: 'Default', dsn, active: true }] });
      expect(text.split('\n')[0]).toBe(`DSN of web: ${dsn}`);
    }
  });

  it('is refused to read and triage tokens, before the project is looked up', async () => {
    for (const name of ['read', 'triage', 'readWeb', 'triageWeb'] as const) {
      for (const project of ['web', 'no-such-project']) {
        const refused = await h.call(name, 'get_dsn', { project });
        expect(refused.isError).toBe(true);
        expect(refused.text).toBe(
          `forbidden: get_dsn needs a token with role admin or higher; this token has role ${h.tokens[name].role}. ` +
            `An administrator mints one with: errata createtoken --role admin${name.endsWith('Web') ? ' --project web' : ''} --organization default`,
        );
      }
    }
  });

  it('answers for a project out of scope exactly as for one that does not exist', async () => {
    const hidden = await h.call('adminWeb', 'get_dsn', { project: 'shop' });
    const absent = await h.call('adminWeb', 'get_dsn', { project: 'nope' });
    expect(hidden.isError).toBe(true);
    expect(hidden.text).toBe('not_found: no project "shop" is visible to this token: list_projects shows the ones that are');
    expect(hidden.text.replace('shop', 'X')).toBe(absent.text.replace('nope', 'X'));
  });

  it("gives another organization's admin its own project of the same slug, never ours", async () => {
    const { structured } = await h.call('other', 'get_dsn', { project: 'web' });
    expect(structured.dsn).toBe(await dsnOf(h.projects.otherWeb.id));
    expect(structured.dsn).not.toBe(await dsnOf(h.projects.web.id));
  });

  it('says how to fix a project without an active key', async () => {
    const [key] = await h.stores.metadata.listProjectKeys(h.projects.shop.id);
    await h.stores.metadata.setProjectKeyActive(key!.publicKey, false);
    const refused = await h.call('admin', 'get_dsn', { project: 'shop' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe('not_found: project shop has no active DSN key: enable one with errata enablekey');
  });

  it('refuses a missing or malformed project argument by name', async () => {
    // Left out, it is asked of an organization-wide token only (a project-scoped one has its own).
    const missing = await h.call('admin', 'get_dsn', {});
    expect(missing.text).toBe(
      'invalid_input: project is required for an organization-wide token: pass a slug list_projects shows',
    );
    expect((await h.call('adminWeb', 'get_dsn', {})).structured.project).toBe('web');
    for (const [args, problem] of [
      [{ project: '' }, 'Too small: expected string to have >=1 characters'],
      [{ project: 7 }, 'Invalid input: expected string, received number'],
    ] as const) {
      const refused = await h.call('admin', 'get_dsn', args);
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(refused.text, JSON.stringify(args)).toContain(`Invalid arguments for tool get_dsn: ${problem} at project`);
    }
  });
});
