// The role x scope matrix over every tool, a project-scoped token that cannot tell another
// project exists, and two organizations that no call crosses.
import { beforeAll, describe, expect, it } from 'vitest';
import { listIssues } from '../issues.ts';
import { type ToolCall } from '../mcp-client.ts';
import { type Provisioned } from '../standalone-server.ts';
import { marker, TOOLS, type AgentSuite, type AgentTarget } from './suite.ts';

export function describeRolesScopesAndOrganizations(suite: AgentSuite): void {
  describe('roles, scopes and organizations', () => {
    const { tokens, webMarker, otherMarker, agent, issueOf } = suite;
    let target: AgentTarget;
    let web: Provisioned;
    let shop: Provisioned;
    let otherWeb: Provisioned;
    beforeAll(() => {
      ({ target, web, shop, otherWeb } = suite);
    });
    const ROLE_OF: Record<string, string> = {
      whoami: 'read',
      list_projects: 'read',
      list_issues: 'read',
      whats_new: 'read',
      get_issue_context: 'read',
      check_resolution: 'read',
      update_issue: 'triage',
      bulk_update_issues: 'triage',
      search_logs: 'read',
      create_project: 'admin',
      get_dsn: 'admin',
      verify_installation: 'read',
    };
    const RANK: Record<string, number> = { read: 0, triage: 1, admin: 2 };

    it('every tool with every role, organization-wide and project-scoped', async () => {
      const checkout = await issueOf(web, `Checkout ${webMarker} failed`);
      const args: Record<string, Record<string, unknown>> = {
        whoami: {},
        list_projects: {},
        list_issues: { project: 'web' },
        whats_new: { project: 'web' },
        get_issue_context: { shortId: checkout.shortId },
        check_resolution: { shortId: checkout.shortId },
        update_issue: { shortId: checkout.shortId, action: 'unresolve' },
        bulk_update_issues: { project: 'web', query: 'no issue has this title', action: 'ignore' },
        search_logs: { project: 'web' },
        create_project: { name: `Matrix ${marker()}` },
        get_dsn: { project: 'web' },
        verify_installation: { project: 'web' },
      };
      const outcomes: string[] = [];
      for (const role of ['read', 'triage', 'admin']) {
        for (const scope of ['org', 'web']) {
          const a = await agent(tokens[`${role}:${scope}`]!);
          const mayCall = (tool: string) =>
            RANK[role]! >= RANK[ROLE_OF[tool]!]! && !(tool === 'create_project' && scope === 'web');
          // tools/list shows exactly the tools the token may call; the others are refused by name below.
          expect((await a.client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS.filter(mayCall));
          for (const tool of TOOLS) {
            const result = await a.call(tool, args[tool]!);
            const allowed = mayCall(tool);
            outcomes.push(`${role}:${scope}:${tool}:${result.isError ? 'refused' : 'ok'}`);
            if (allowed) {
              expect(result.isError, `${role}/${scope} ${tool}: ${result.text}`).toBe(false);
            } else {
              expect(result.isError, `${role}/${scope} ${tool} should be refused`).toBe(true);
              expect(result.text).toMatch(/^forbidden: /);
              expect(result.text).toContain(
                tool === 'create_project' && RANK[role] === 2 ? 'organization-wide' : `role ${ROLE_OF[tool]}`,
              );
            }
          }
        }
      }
      // Refused: read tokens 4 tools each (update, bulk, create_project, get_dsn), triage tokens 2
      // (create_project, get_dsn), the project-scoped admin 1 (create_project): 13 of 72.
      expect(outcomes.filter((o) => o.endsWith('refused'))).toHaveLength(13);
    });

    it('a project-scoped token cannot see another project, and cannot tell it exists', async () => {
      const scoped = await agent(tokens['admin:web']!);
      const shopIssue = await issueOf(shop, `Plain message ${webMarker}`);
      for (const [tool, args] of [
        ['list_issues', { project: 'shop' }],
        ['search_logs', { project: 'shop' }],
        ['get_dsn', { project: 'shop' }],
        ['verify_installation', { project: 'shop' }],
        ['whats_new', { project: 'shop' }],
        ['bulk_update_issues', { project: 'shop', action: 'ignore' }],
        ['get_issue_context', { shortId: shopIssue.shortId }],
        ['check_resolution', { shortId: shopIssue.shortId }],
        ['update_issue', { shortId: shopIssue.shortId, action: 'resolve' }],
      ] as const) {
        const existing = await scoped.call(tool, args);
        const absent = await scoped.call(
          tool,
          'project' in args ? { ...args, project: 'no-such-project' } : { ...args, shortId: 'SHOP-999999' },
        );
        expect(existing.isError, tool).toBe(true);
        expect(existing.text.replace(/shop|SHOP-\d+/g, 'X'), tool).toBe(absent.text.replace(/no-such-project|SHOP-999999/g, 'X'));
      }
      const whatsNew = await scoped.call('whats_new', {});
      expect(whatsNew.structured.projects).toEqual(['web']);
      expect((await listIssues(target, shop, 'status=all')).find((i) => i.shortId === shopIssue.shortId)?.status).toBe(
        'unresolved',
      );
    });

    it('two organizations: no call crosses them', async () => {
      const other = await agent(tokens.other!);
      const outputs: ToolCall[] = [];
      const checkout = await issueOf(web, `Checkout ${webMarker} failed`);
      for (const [tool, args] of [
        ['list_projects', {}],
        ['list_issues', { project: 'web', status: 'all' }],
        ['whats_new', {}],
        ['get_issue_context', { shortId: checkout.shortId }],
        ['check_resolution', { shortId: checkout.shortId }],
        ['search_logs', { project: 'web', sinceMinutes: 1440 }],
        ['get_dsn', { project: 'web' }],
        ['verify_installation', { project: 'web' }],
        ['list_issues', { project: 'shop' }],
      ] as const) {
        outputs.push(await other.call(tool, args));
      }
      const all = JSON.stringify(outputs);
      expect(all).not.toContain(webMarker);
      expect(all).not.toContain(web.publicKey);
      expect(all).toContain(otherMarker);
      expect(all).toContain(otherWeb.publicKey);
      expect(outputs[0]!.structured.projects.map((p: { slug: string }) => p.slug)).toEqual(['web']);
      expect(outputs[8]!.isError).toBe(true);
      // Its update reaches only its own issue of the same short id.
      await other.call('update_issue', { shortId: checkout.shortId, action: 'ignore' });
      expect((await issueOf(web, `Checkout ${webMarker} failed`)).status).toBe('unresolved');
    });
  });
}
