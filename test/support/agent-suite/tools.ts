// Each tool once, with the admin token, on what the suite sent with the real @sentry/node; the
// install guides run as a user would paste them for verify_installation.
import { beforeAll, describe, expect, it } from 'vitest';
import { listIssues } from '../issues.ts';
import { sendScenario, type Agent } from '../mcp-client.ts';
import { eventually, type Provisioned } from '../standalone-server.ts';
import { fetchGuide, runGuide } from './install-guides.ts';
import { marker, type AgentSuite, type AgentTarget } from './suite.ts';

export function describeTools(suite: AgentSuite): void {
  describe('tools', () => {
    const { tokens, webMarker, agent, issueOf } = suite;
    let target: AgentTarget;
    let web: Provisioned;
    beforeAll(() => {
      ({ target, web } = suite);
    });
    let admin: Agent;
    beforeAll(async () => {
      admin = await agent(tokens.admin!);
    });

    it('whoami names the token, role, scope, organization and rate limit', async () => {
      const scoped = await (await agent(tokens['triage:web']!)).call('whoami');
      expect(scoped.structured).toMatchObject({
        role: 'triage',
        scope: { type: 'project', project: 'web' },
        organization: 'default',
      });
      const wide = await admin.call('whoami');
      expect(wide.structured).toMatchObject({
        tokenName: 'suite-admin',
        role: 'admin',
        scope: { type: 'organization', project: null },
      });
      expect(wide.text).toContain('suite-admin');
    });

    it('list_projects shows what the token may see', async () => {
      expect((await admin.call('list_projects')).structured.projects.map((p: { slug: string }) => p.slug)).toEqual([
        'shop',
        'web',
      ]);
      const scoped = await (await agent(tokens['read:web']!)).call('list_projects');
      expect(scoped.structured.projects.map((p: { slug: string }) => p.slug)).toEqual(['web']);
    });

    it('list_issues lists with filters and pages, titles inside the envelope', async () => {
      const all = await admin.call('list_issues', { project: 'web', status: 'all', query: webMarker });
      expect(all.isError).toBe(false);
      const facts = all.structured.issues as Array<Record<string, unknown>>;
      const texts = all.structured.untrustedData.issues as Array<Record<string, unknown>>;
      const checkout = texts.find((t) => String(t.title).includes(`Checkout ${webMarker} failed`))!;
      expect(checkout).toMatchObject({ environments: ['agents'], releases: ['web@1.0'] });
      expect(String(checkout.culprit)).toContain('checkout');
      const fact = facts.find((f) => f.shortId === checkout.shortId)!;
      expect(fact).toMatchObject({ level: 'error', status: 'unresolved', count: 12, userCount: 1 });
      expect(all.structured.project).toBe('web');
      expect(JSON.stringify(facts)).not.toContain(webMarker);

      const page1 = await admin.call('list_issues', { project: 'web', status: 'all', limit: 1 });
      expect(page1.structured.issues).toHaveLength(1);
      const page2 = await admin.call('list_issues', {
        project: 'web',
        status: 'all',
        limit: 1,
        cursor: page1.structured.nextCursor,
      });
      expect(page2.structured.issues[0].shortId).not.toBe(page1.structured.issues[0].shortId);
      const warnings = await admin.call('list_issues', { project: 'web', status: 'all', level: 'warning' });
      expect(warnings.structured.issues).toEqual([]);
      const bad = await admin.call('list_issues', { project: 'web', status: 'open' });
      expect(bad.isError).toBe(true);
      expect(bad.text).toMatch(/status/);
    });

    it('get_issue_context bundles the stack trace, breadcrumbs, trace logs, release, trend, users and, on request, the raw event', async () => {
      const issue = await issueOf(web, `Checkout ${webMarker} failed`);
      const context = await admin.call('get_issue_context', { shortId: issue.shortId });
      expect(context.isError).toBe(false);
      const s = context.structured;
      expect(s.issue).toMatchObject({ shortId: issue.shortId, count: 12 });
      // From the day it was first seen to today: one day, or two across midnight UTC.
      expect(s.dailyCounts.counts.length).toBeLessThanOrEqual(2);
      // Today last; the 12 events may straddle midnight UTC, so their days are summed.
      expect(s.dailyCounts.firstDay).toBe(new Date(issue.firstSeen).toISOString().slice(0, 10));
      expect(s.dailyCounts.counts.reduce((sum: number, count: number) => sum + count, 0)).toBe(12);
      expect(s.eventsPerEnvironment).toEqual([12]);
      expect(s.eventsPerRelease).toEqual([12]);
      expect(s.issue.userCount).toBe(1);
      expect(s.untrustedData.sampleUsers).toHaveLength(1);
      expect(s.latestEvent.traceId).toMatch(/^[0-9a-f]{32}$/);
      const u = s.untrustedData;
      expect(u.environments).toEqual(['agents']);
      expect(u.releases).toEqual(['web@1.0']);
      // The deploy directory is dropped: the one in-app file is named alone, its crash frame is checkout's.
      expect(u.exceptions[0]).toMatchObject({
        type: 'TypeError',
        crashFrame: { file: 'agent-scenarios.cjs', function: 'checkout' },
      });
      // The crash frame's own line in the stack only marks where it is: crashFrame says the rest.
      expect(u.exceptions[0].stack.at(-1)).toBe('[crash frame]');
      expect(JSON.stringify(u.breadcrumbs)).toContain(`opened cart ${webMarker}`);
      expect(u.logs.some((l: string) => l.includes(`info loading cart ${webMarker}`))).toBe(true);
      expect(u.release).toBe('web@1.0');
      expect(u.sampleUsers[0]).toMatchObject({ email: `${webMarker}@example.test` });
      expect(u).not.toHaveProperty('rawEvent');
      expect(context.text).toContain('<untrusted-data>');
      const raw = await admin.call('get_issue_context', { shortId: issue.shortId, include: ['raw'] });
      expect(raw.structured.untrustedData.rawEvent.event_id).toBe(s.latestEvent.eventId);
      const frames = raw.structured.untrustedData.rawEvent.exception.values[0].stacktrace.frames as Array<{ filename?: string }>;
      expect(frames.some((f) => String(f.filename).endsWith('/test/clients/node/agent-scenarios.cjs'))).toBe(true);
    });

    it('get_issue_context names similar issues', async () => {
      const m = marker();
      await sendScenario(web.dsn, 'checkout-error', m, 'web@1.0');
      await sendScenario(web.dsn, 'checkout-error-elsewhere', m, 'web@1.0');
      await eventually(async () => {
        const issues = (await listIssues(target, web, `status=all&query=${m}`)).filter((i) => i.title.includes(m));
        return issues.length === 2 ? issues : undefined;
      }, 'two issues with the same title');
      const issue = await issueOf(web, `Checkout ${m} failed`);
      const context = await admin.call('get_issue_context', { shortId: issue.shortId });
      expect(context.structured.similarIssues).toEqual(
        expect.arrayContaining([expect.objectContaining({ reason: 'similar_title' })]),
      );
    });

    it('whats_new reports each issue once with its reasons, for every visible project or one', async () => {
      const news = await admin.call('whats_new', {});
      expect(news.structured.projects).toEqual(['shop', 'web']);
      const titles = (news.structured.untrustedData.issues as Array<{ shortId: string; title: string }>).map((i) => i.title);
      expect(titles.some((t) => t.includes(`Checkout ${webMarker}`))).toBe(true);
      expect(titles.some((t) => t.includes(`Plain message ${webMarker}`))).toBe(true);
      const checkout = await issueOf(web, `Checkout ${webMarker} failed`);
      // New and loud: 12 events with none before is a burst (no usual rate to be 3x of), listed once with both reasons.
      const entry = news.structured.issues.find((i: { shortId: string }) => i.shortId === checkout.shortId);
      expect(entry).toMatchObject({ project: 'web', reasons: ['new', 'burst'], count: 12 });
      const shopOnly = await admin.call('whats_new', { project: 'shop' });
      expect(shopOnly.structured.projects).toEqual(['shop']);
      expect(shopOnly.structured.issues.length).toBeGreaterThan(0);
      // One project: named once for the answer, not on every row.
      expect(shopOnly.structured.issues.some((i: object) => 'project' in i)).toBe(false);
      const byRelease = await admin.call('whats_new', { release: 'shop@1.0' });
      expect(byRelease.structured.release).toEqual({ knownIn: ['shop'] });
      expect(byRelease.structured.issues.map((i: { project: string }) => i.project)).toEqual(['shop']);
    });

    it('search_logs finds logs by text, trace id, attributes and level', async () => {
      const byText = await admin.call('search_logs', { project: 'web', query: `loading cart ${webMarker}` });
      expect(byText.structured.count).toBe(12);
      const log = byText.structured.untrustedData.logs[0];
      expect(log).toMatchObject({ level: 'info', body: `loading cart ${webMarker}`, release: 'web@1.0' });
      const byTrace = await admin.call('search_logs', { project: 'web', traceId: log.traceId });
      expect(byTrace.structured.count).toBeGreaterThan(0);
      const byAttribute = await admin.call('search_logs', { project: 'web', attributes: { marker: webMarker, cartId: 7 } });
      expect(byAttribute.structured.count).toBe(12);
      const warnings = await admin.call('search_logs', { project: 'web', level: 'warn', query: webMarker });
      expect(warnings.structured.count).toBe(1);
      const bad = await admin.call('search_logs', { project: 'web', traceId: 'xyz' });
      expect(bad.isError).toBe(true);
      expect(bad.text).toContain('32 hex');
    });

    it('create_project makes a project with a working DSN; get_dsn returns it', async () => {
      const created = await admin.call('create_project', { name: `Agent made ${marker()}`, platform: 'node' });
      expect(created.isError).toBe(false);
      const slug = created.structured.project.slug as string;
      expect(new URL(created.structured.dsn).host).toBe(new URL(target.baseUrl).host);
      expect(created.structured.installGuide).toBe(
        `${target.baseUrl}/api/v1/organizations/default/projects/${slug}/install/node.md`,
      );
      const dsn = await admin.call('get_dsn', { project: slug });
      expect(dsn.structured.dsn).toBe(created.structured.dsn);
      const duplicate = await admin.call('create_project', { name: 'again', slug });
      expect(duplicate.isError).toBe(true);
      expect(duplicate.text).toContain('already exists');
    });

    it('verify_installation follows the install guides: no event, the guide test event (Node and Python), then a real error', async () => {
      for (const platform of ['node', 'python'] as const) {
        const created = await admin.call('create_project', { name: `Verify ${platform} ${marker()}` });
        const slug = created.structured.project.slug as string;
        const before = await admin.call('verify_installation', { project: slug });
        expect(before.structured).toMatchObject({
          dsnKeyExists: true,
          eventReceived: false,
          verdict: 'waiting_for_first_event',
        });
        const guide = await fetchGuide(target, tokens.admin!, slug, platform);
        expect(guide).toContain(created.structured.dsn);
        await runGuide(platform, guide);
        const after = await eventually(async () => {
          const result = await admin.call('verify_installation', { project: slug });
          return result.structured.eventReceived ? result : undefined;
        }, `the ${platform} guide's test event`);
        expect(after.structured).toMatchObject({ verdict: 'test_event_received', latestEvent: { kind: 'test_event' } });
        if (platform === 'node') {
          await sendScenario(created.structured.dsn, 'checkout-error', marker(), 'x@1');
          const real = await eventually(async () => {
            const result = await admin.call('verify_installation', { project: slug });
            return result.structured.verdict === 'real_event_received' ? result : undefined;
          }, 'a real error');
          expect(real.structured.latestEvent.kind).toBe('error');
        }
      }
    });
  });
}
