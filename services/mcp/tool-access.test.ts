// tools/list per token, through the real client: a token sees only the tools it may call; a
// hidden tool called by name is still refused with the command that mints a token that may, and
// the agent manifest's catalogue keeps every tool with the role it needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_TOOLS, TOOLS } from '../../test/support/agent-suite/suite.ts';
import { OPEN_TIMEOUT_MS, openToolHarness, type TokenName, type ToolHarness } from '../../test/support/tool-harness.ts';
import { createLogger } from '../runtime/logger.ts';
import { toolCatalog } from './bootstrap/tool-catalog.ts';
import { processToolList } from './tool-list.ts';

let h: ToolHarness;
beforeAll(async () => {
  h = await openToolHarness();
}, OPEN_TIMEOUT_MS);
afterAll(() => h.close());

// The catalogue in its published order, as the agent suite holds it; triage adds the two triage tools.
const ALL_TOOLS = TOOLS;
const TRIAGE_TOOLS = TOOLS.filter((tool) => !['create_project', 'get_dsn'].includes(tool));
const listed = async (token: TokenName) => (await h.listTools(token)).tools.map((tool) => tool.name);

describe('tools/list by role', () => {
  it('lists a read token only the read tools, organization-wide or project-scoped', async () => {
    expect(await listed('read')).toEqual(READ_TOOLS);
    expect(await listed('readWeb')).toEqual(READ_TOOLS);
  });

  it('adds the triage tools for a triage token', async () => {
    expect(await listed('triage')).toEqual(TRIAGE_TOOLS);
    expect(await listed('triageWeb')).toEqual(TRIAGE_TOOLS);
  });

  it('lists all twelve to an organization-wide admin, and all but create_project to a project-scoped one', async () => {
    expect(await listed('admin')).toEqual(ALL_TOOLS);
    expect(await listed('other')).toEqual(ALL_TOOLS);
    expect(await listed('adminWeb')).toEqual(ALL_TOOLS.filter((tool) => tool !== 'create_project'));
  });

  it('still refuses a hidden tool called by name, naming the command that mints a token that may', async () => {
    const refused = await h.call('readWeb', 'update_issue', { shortId: 'WEB-1', action: 'resolve' });
    expect(refused).toMatchObject({ isError: true });
    expect(refused.text).toBe(
      'forbidden: update_issue needs a token with role triage or higher; this token has role read. ' +
        'An administrator mints one with: errata createtoken --role triage --project web --organization default',
    );
    const scoped = await h.call('adminWeb', 'create_project', { name: 'Hidden' });
    expect(scoped.text).toBe(
      'forbidden: create_project needs an organization-wide admin token; this token is scoped to project web. ' +
        'An administrator mints one with: errata createtoken --role admin --organization default',
    );
    const unknown = await h.call('read', 'no_such_tool');
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.text).toContain('no_such_tool not found');
    for (const name of ['constructor', 'toString', '__proto__']) {
      const named = await h.call('read', name);
      expect([name, named.isError, named.text]).toEqual([name, true, expect.stringContaining(`${name} not found`)]);
    }
  });

  it('keeps the full catalogue, with the role each tool needs, in the agent manifest', async () => {
    const catalog = await toolCatalog(processToolList(createLogger('silent')));
    expect(catalog.map((tool) => tool.name)).toEqual(ALL_TOOLS);
    expect(catalog.find((tool) => tool.name === 'update_issue')).toMatchObject({ minimumRole: 'triage' });
    expect(catalog.find((tool) => tool.name === 'create_project')).toMatchObject({
      minimumRole: 'admin',
      organizationWideOnly: true,
    });
  });
});
