// Every tool refuses an unknown key by name, and a refused call changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { listIssues } from '../issues.ts';
import { sendScenario } from '../mcp-client.ts';
import { eventually, type Provisioned } from '../standalone-server.ts';
import { marker, TOOLS, type AgentSuite, type AgentTarget } from './suite.ts';

export function describeStrictInputs(suite: AgentSuite): void {
  describe('strict inputs', () => {
    const { tokens, webMarker, agent, issueOf } = suite;
    let target: AgentTarget;
    let web: Provisioned;
    beforeAll(() => {
      ({ target, web } = suite);
    });
    // The least valid arguments of each tool, to which one unknown key is added.
    const validArgs = (shortId: string): Record<string, Record<string, unknown>> => ({
      whoami: {},
      list_projects: {},
      list_issues: { project: 'web' },
      whats_new: {},
      get_issue_context: { shortId },
      check_resolution: { shortId },
      update_issue: { shortId, action: 'unresolve' },
      bulk_update_issues: { project: 'web', query: 'no issue has this title', action: 'ignore' },
      search_logs: { project: 'web' },
      create_project: { name: `Strict ${marker()}` },
      get_dsn: { project: 'web' },
      verify_installation: { project: 'web' },
    });

    it('every tool publishes additionalProperties: false and refuses an unknown key by name, listing the accepted ones', async () => {
      const a = await agent(tokens.admin!);
      const tools = (await a.client.listTools()).tools;
      expect(tools.map((t) => t.name)).toEqual(TOOLS);
      for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      const checkout = await issueOf(web, `Checkout ${webMarker} failed`);
      const args = validArgs(checkout.shortId);
      for (const tool of tools) {
        const accepted = Object.keys(tool.inputSchema.properties ?? {});
        const refused = await a.call(tool.name, { ...args[tool.name], unknownKey: 1 });
        expect(refused.isError, tool.name).toBe(true);
        expect(refused.text, tool.name).toContain('unknown key "unknownKey"');
        expect(refused.text, tool.name).toContain(accepted.length ? `accepted keys are ${accepted.join(', ')}` : 'takes no keys');
      }
      const projects = (await a.call('list_projects')).structured.projects.map((p: { slug: string }) => p.slug);
      expect(projects.filter((slug: string) => slug.startsWith('strict-'))).toEqual([]);
    });

    it('bulk_update_issues with a filter it does not know changes nothing, and says which key', async () => {
      const triage = await agent(tokens['triage:web']!);
      const m = marker();
      await sendScenario(web.dsn, 'checkout-error', m, 'web@1.0');
      await sendScenario(web.dsn, 'checkout-error-elsewhere', m, 'web@1.0');
      const before = await eventually(async () => {
        const found = (await listIssues(target, web, `status=all&query=${m}`)).filter((i) => i.title.includes(m));
        return found.length === 2 ? found : undefined;
      }, 'two issues to leave alone');
      expect(before.map((i) => i.status)).toEqual(['unresolved', 'unresolved']);
      for (const extra of [{ environments: ['staging'] }, { issues: [before[0]!.shortId] }]) {
        const refused = await triage.call('bulk_update_issues', { project: 'web', query: m, action: 'resolve', ...extra });
        const key = Object.keys(extra)[0]!;
        expect(refused.isError, key).toBe(true);
        expect(refused.text).toContain(`unknown key "${key}"`);
        expect(refused.text).toContain(
          'accepted keys are project, status, level, query, environment, sort, shortIds, action, snoozeMinutes, confirmBulk, dryRun',
        );
        expect(refused.structured).toEqual({});
      }
      // list_issues takes sort, but only the orders the store pages by.
      const sorted = await triage.call('list_issues', { project: 'web', sort: 'freq' });
      expect(sorted.isError).toBe(true);
      expect(sorted.text).toContain('expected one of "lastSeen"|"firstSeen"|"events"|"users" at sort');
      const after = (await listIssues(target, web, `status=all&query=${m}`)).filter((i) => i.title.includes(m));
      expect(after.map((i) => [i.shortId, i.status])).toEqual(before.map((i) => [i.shortId, 'unresolved']));
    });
  });
}
