// The documents an agent starts from: install guides, the manifest, skills and llms.txt.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Provisioned } from '../standalone-server.ts';
import { fetchGuide } from './install-guides.ts';
import { DSN_PLACEHOLDER, READ_TOOLS, TOOLS, type AgentSuite, type AgentTarget } from './suite.ts';

export function describeBootstrapDocuments(suite: AgentSuite): void {
  describe('bootstrap documents', () => {
    const { tokens, agent } = suite;
    let target: AgentTarget;
    let web: Provisioned;
    beforeAll(() => {
      ({ target, web } = suite);
    });
    it('install guides show the DSN only to roles that may read it (get_dsn: admin), a placeholder to the others', async () => {
      for (const role of ['read', 'triage']) {
        for (const platform of ['node', 'python', 'browser']) {
          const guide = await fetchGuide(target, tokens[`${role}:web`]!, 'web', platform);
          expect(guide, `${role} ${platform}`).not.toContain(web.publicKey);
          expect(guide).toContain(DSN_PLACEHOLDER);
          expect(guide).toContain(`this token has role ${role}`);
          expect(guide).toContain('get_dsn');
          expect(guide).toContain('errata.test_event');
        }
      }
      const refusal = await (await agent(tokens['read:web']!)).call('get_dsn', { project: 'web' });
      expect(refusal.text).toContain('role admin');
    });

    it('the manifest is public and its tool catalog is exactly what /mcp lists', async () => {
      const response = await fetch(`${target.url}/api/v1/agents`);
      expect(response.status).toBe(200);
      // Like the rest of /api/v1, it takes no query parameters and says so rather than ignore one.
      const refused = await fetch(`${target.url}/api/v1/agents?format=yaml`);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        'unknown query parameter "format"; this takes no query parameters',
      );
      const manifest = (await response.json()) as Record<string, any>;
      expect(manifest.authentication).toMatchObject({ type: 'bearer', grantsCredentials: false });
      expect(manifest.authentication.howToGetAToken).toContain('errata createtoken');
      expect(manifest.roles.map((r: { name: string }) => r.name)).toEqual(['read', 'triage', 'admin']);
      expect(manifest.recommendedFirstCalls.map((c: { tool: string }) => c.tool)).toEqual([
        'whoami',
        'list_projects',
        'whats_new',
        'verify_installation',
      ]);
      expect(manifest.mcp.url).toBe(`${target.baseUrl}/mcp`);
      // The full catalogue, as /mcp lists it to an organization-wide admin; a read token's list is the read part of it.
      const live = (await (await agent(tokens['admin:org']!)).client.listTools()).tools;
      const readLive = (await (await agent(tokens['read:web']!)).client.listTools()).tools;
      expect(readLive.map((t) => t.name)).toEqual(READ_TOOLS);
      expect(readLive).toEqual(live.filter((t) => READ_TOOLS.includes(t.name)));
      expect(
        manifest.tools.map((t: Record<string, unknown>) => ({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          annotations: t.annotations,
        })),
      ).toEqual(
        live.map((t) => ({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          annotations: t.annotations,
        })),
      );
      expect(manifest.tools.find((t: { name: string }) => t.name === 'create_project')).toMatchObject({
        minimumRole: 'admin',
        organizationWideOnly: true,
      });
    });

    it('skills and llms.txt are public and name this instance', async () => {
      for (const skill of ['errata-setup', 'errata-fix-issues']) {
        const response = await fetch(`${target.url}/api/v1/agents/skills/${skill}.md`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toContain('text/markdown');
        const text = await response.text();
        expect(text).toContain(`${target.baseUrl}/mcp`);
        expect(text).toContain(`.claude/skills/${skill}/SKILL.md`);
        expect(text).toContain('AGENTS.md');
      }
      const setup = await (await fetch(`${target.url}/api/v1/agents/skills/errata-setup.md`)).text();
      for (const step of ['verify_installation', 'createtoken --role triage', 'test event']) expect(setup).toContain(step);
      const fix = await (await fetch(`${target.url}/api/v1/agents/skills/errata-fix-issues.md`)).text();
      for (const step of ['whats_new', 'bulk_update_issues', 'get_issue_context', 'check_resolution', 'commit'])
        expect(fix).toContain(step);
      expect((await fetch(`${target.url}/api/v1/agents/skills/other.md`)).status).toBe(404);
      const llms = await (await fetch(`${target.url}/llms.txt`)).text();
      expect(llms).toContain('never metered');
      expect(llms).toContain(`${target.baseUrl}/api/v1/agents`);
      for (const tool of TOOLS) expect(llms).toContain(`\`${tool}\``);
    });

    it('install guides carry the project DSN and need a token that can see the project', async () => {
      for (const platform of ['node', 'python', 'browser']) {
        const guide = await fetchGuide(target, tokens['admin:web']!, 'web', platform);
        expect(guide).toContain(web.dsn);
        expect(guide).not.toContain(DSN_PLACEHOLDER);
        expect(guide).toContain('verify_installation');
        expect(guide).toContain('errata.test_event');
        expect(guide).toMatch(/enableLogs: true|enable_logs=True/);
      }
      const path = `/api/v1/organizations/default/projects/web/install/node.md`;
      expect((await fetch(`${target.url}${path}`)).status).toBe(401);
      const other = await fetch(`${target.url}${path}`, { headers: { authorization: `Bearer ${tokens.other}` } });
      expect(other.status).toBe(404);
      const shopToken = await fetch(`${target.url}/api/v1/organizations/default/projects/shop/install/node.md`, {
        headers: { authorization: `Bearer ${tokens['read:web']}` },
      });
      expect(shopToken.status).toBe(404);
      const unknown = await fetch(`${target.url}/api/v1/organizations/default/projects/web/install/cobol.md`, {
        headers: { authorization: `Bearer ${tokens.admin}` },
      });
      expect(unknown.status).toBe(404);
    });
  });
}
