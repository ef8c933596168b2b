// An issue through its lifecycle by the tools: resolve with a marker that holds or regresses,
// ignore, unresolve, snooze, delete, bulk updates, and odd text in what a token writes.
import { beforeAll, describe, expect, it } from 'vitest';
import { listIssues, waitForIssue } from '../issues.ts';
import { sendScenario, type Agent, type ToolCall } from '../mcp-client.ts';
import { eventually, type Provisioned } from '../standalone-server.ts';
import { marker, type AgentSuite, type AgentTarget } from './suite.ts';

export function describeIssueLifecycle(suite: AgentSuite): void {
  describe('issue lifecycle through the tools', () => {
    const { tokens, agent } = suite;
    let target: AgentTarget;
    let web: Provisioned;
    beforeAll(() => {
      ({ target, web } = suite);
    });
    let triage: Agent;
    let adminAgent: Agent;
    beforeAll(async () => {
      triage = await agent(tokens['triage:web']!);
      adminAgent = await agent(tokens.admin!);
    });

    async function freshIssue(release = 'web@1.0'): Promise<{ m: string; shortId: string }> {
      const m = marker();
      await sendScenario(web.dsn, 'checkout-error', m, release);
      return { m, shortId: (await waitForIssue(target, web, `Checkout ${m} failed`)).shortId };
    }

    async function checkedWith(shortId: string, eventsSince: number): Promise<ToolCall> {
      return eventually(async () => {
        const result = await triage.call('check_resolution', { shortId });
        return result.structured.eventsSince?.count === eventsSince ? result : undefined;
      }, `${eventsSince} events since the resolution of ${shortId}`);
    }

    it('resolve stamps a marker that holds against older releases and regresses on the marker release', async () => {
      const { m, shortId } = await freshIssue('web@1.0');
      const resolved = await triage.call('update_issue', {
        shortId,
        action: 'resolve',
        release: 'web@2.0',
        commit: 'abc1234',
        note: 'null check in checkout',
      });
      expect(resolved.structured).toMatchObject({
        status: 'resolved',
        changed: true,
        resolution: { by: expect.any(String) },
        agentWrittenData: { resolution: { release: 'web@2.0', commit: 'abc1234', note: 'null check in checkout' } },
      });
      // web@2.0 is not deployed yet: the resolve warns that the project has never seen it, and
      // check_resolution waits for it rather than calling the resolve held.
      expect(resolved.structured.warnings).toEqual([expect.stringContaining('never seen the release the resolve names')]);
      expect(resolved.structured.untrustedData.recentReleases).toContain('web@1.0');
      expect((await triage.call('check_resolution', { shortId })).structured).toMatchObject({
        status: 'awaiting_release',
        eventsSince: { count: 0 },
        markerRelease: { seen: false },
      });

      // Still the old release: the fix is not deployed yet, so it is not a regression.
      await sendScenario(web.dsn, 'checkout-error', m, 'web@1.0');
      // Issue counts and stored events are written one after the other (in distributed mode,
      // to Postgres and then ClickHouse): wait for the event itself.
      const waiting = await checkedWith(shortId, 1);
      expect(waiting.structured).toMatchObject({
        status: 'awaiting_release',
        issueStatus: 'resolved',
        eventsSince: { count: 1 },
      });
      expect(waiting.structured.untrustedData.releasesSince).toEqual(['web@1.0']);

      // The release that was meant to fix it: a regression.
      await sendScenario(web.dsn, 'checkout-error', m, 'web@2.0');
      const regressed = await checkedWith(shortId, 2);
      expect(regressed.structured).toMatchObject({
        status: 'regressed',
        issueStatus: 'unresolved',
        eventsSince: { count: 2 },
        markerRelease: { seen: true },
        regressingEvent: { eventId: expect.stringMatching(/^[0-9a-f]{32}$/) },
      });
      expect(regressed.structured.untrustedData.regressionRelease).toBe('web@2.0');
      const regressedIn = (issues: Array<{ shortId: string; reasons: string[] }>) =>
        issues.filter((i) => i.reasons.includes('regressed')).map((i) => i.shortId);
      const news = await triage.call('whats_new', { release: 'web@2.0' });
      expect(regressedIn(news.structured.issues)).toEqual([shortId]);
      const lastHour = await triage.call('whats_new', { sinceMinutes: 60 });
      expect(regressedIn(lastHour.structured.issues)).toContain(shortId);
      const context = await triage.call('get_issue_context', { shortId });
      expect(context.structured.issue.isRegression).toBe(true);
      const kinds = context.structured.activity.map((a: { kind: string; actor: string }) => `${a.kind}:${a.actor}`);
      expect(kinds.slice(0, 2)).toEqual(['regression:errata', expect.stringMatching(/^resolve:triage-web-/)]);
    });

    it('a NUL or a lone surrogate in any text is stored as U+FFFD, never an internal error', async () => {
      // Postgres refuses both (NUL in text, their JSON escapes in jsonb); ingest replaces them,
      // and so does every query now, so a search with one finds what ingest kept.
      const { m, shortId } = await freshIssue();
      const resolved = await triage.call('update_issue', {
        shortId,
        action: 'resolve',
        note: `note \u0000 ${m}`,
        commit: 'abc\ud800',
        release: 'web@\u00003',
      });
      expect(resolved.text).not.toContain('internal_error');
      expect(resolved.structured.agentWrittenData.resolution).toEqual({
        note: `note \ufffd ${m}`,
        commit: 'abc\ufffd',
        release: 'web@\ufffd3',
      });
      for (const query of [`Checkout ${m}\u0000`, '\ud800', '\u0000']) {
        const listed = await adminAgent.call('list_issues', { project: 'web', status: 'all', query });
        expect(listed.isError, query).toBe(false);
        const logs = await adminAgent.call('search_logs', { project: 'web', query });
        expect(logs.isError, query).toBe(false);
      }
      const created = await adminAgent.call('create_project', { name: `Odd \u0000 name \udc00 ${m}` });
      expect(created.isError, created.text).toBe(false);
      expect(created.structured.project).toMatchObject({ name: `Odd \ufffd name \ufffd ${m}`, slug: `odd-name-${m}` });
    });

    it('ignore, unresolve and snooze move the issue; no_resolution once the marker is gone', async () => {
      const { shortId } = await freshIssue();
      expect((await triage.call('update_issue', { shortId, action: 'ignore' })).structured.status).toBe('ignored');
      expect((await triage.call('update_issue', { shortId, action: 'unresolve' })).structured.status).toBe('unresolved');
      const missing = await triage.call('update_issue', { shortId, action: 'snooze' });
      expect(missing.isError).toBe(true);
      expect(missing.text).toContain('snoozeMinutes');
      const snoozed = await triage.call('update_issue', { shortId, action: 'snooze', snoozeMinutes: 30 });
      expect(snoozed.structured.status).toBe('snoozed');
      const until = Date.parse(snoozed.structured.snoozeUntil);
      expect(until - Date.now()).toBeGreaterThan(29 * 60_000);
      expect(until - Date.now()).toBeLessThanOrEqual(30 * 60_000);
      const listed = await triage.call('list_issues', { project: 'web', status: 'snoozed' });
      expect(listed.structured.issues.map((i: { shortId: string }) => i.shortId)).toContain(shortId);
      expect((await triage.call('check_resolution', { shortId })).structured.status).toBe('no_resolution');
    });

    it('delete needs admin and confirmDelete; a later event with the same fingerprint starts a new issue', async () => {
      const { m, shortId } = await freshIssue();
      const byTriage = await triage.call('update_issue', { shortId, action: 'delete', confirmDelete: true });
      expect(byTriage.isError).toBe(true);
      expect(byTriage.text).toContain('role admin');
      const unconfirmed = await adminAgent.call('update_issue', { shortId, action: 'delete' });
      expect(unconfirmed.isError).toBe(true);
      expect(unconfirmed.text).toContain('confirmDelete: true');
      expect((await adminAgent.call('get_issue_context', { shortId })).isError).toBe(false);
      const deleted = await adminAgent.call('update_issue', { shortId, action: 'delete', confirmDelete: true });
      expect(deleted.structured).toMatchObject({ deleted: true, changed: true });
      expect(deleted.structured).not.toHaveProperty('status');
      const gone = await adminAgent.call('get_issue_context', { shortId });
      expect(gone.isError).toBe(true);
      expect(gone.text).toContain('not_found');
      await sendScenario(web.dsn, 'checkout-error', m, 'web@1.0');
      const again = await waitForIssue(target, web, `Checkout ${m} failed`);
      expect(again.shortId).not.toBe(shortId);
      expect(again.count).toBe(1);
    });

    it('bulk_update_issues applies to every issue matching the filter; bulk delete needs confirmBulk', async () => {
      const m = marker();
      await sendScenario(web.dsn, 'checkout-error', m, 'web@1.0');
      await sendScenario(web.dsn, 'checkout-error-elsewhere', m, 'web@1.0');
      await eventually(async () => {
        const found = (await listIssues(target, web, `status=all&query=${m}`)).filter((i) => i.title.includes(m));
        return found.length === 2 ? found : undefined;
      }, 'two issues to bulk-update');
      const ignored = await triage.call('bulk_update_issues', { project: 'web', query: m, action: 'ignore' });
      expect(ignored.structured).toMatchObject({ matched: 2, changed: 2 });
      // Suppressed noise no longer shows up as new.
      const news = await triage.call('whats_new', { project: 'web' });
      expect(JSON.stringify(news.structured.untrustedData)).not.toContain(m);
      const again = await triage.call('bulk_update_issues', { project: 'web', status: 'ignored', query: m, action: 'ignore' });
      expect(again.structured).toMatchObject({ matched: 2, changed: 0 });
      const byTriage = await triage.call('bulk_update_issues', {
        project: 'web',
        status: 'ignored',
        query: m,
        action: 'delete',
        confirmBulk: true,
      });
      expect(byTriage.text).toContain('role admin');
      const unconfirmed = await adminAgent.call('bulk_update_issues', {
        project: 'web',
        status: 'ignored',
        query: m,
        action: 'delete',
      });
      expect(unconfirmed.text).toContain('confirmBulk: true');
      expect((await listIssues(target, web, `status=ignored&query=${m}`)).length).toBe(2);
      const deleted = await adminAgent.call('bulk_update_issues', {
        project: 'web',
        status: 'ignored',
        query: m,
        action: 'delete',
        confirmBulk: true,
      });
      expect(deleted.structured).toMatchObject({ matched: 2, changed: 2 });
      expect((await listIssues(target, web, `status=all&query=${m}`)).length).toBe(0);
    });
  });
}
