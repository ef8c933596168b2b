import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Issue } from '../../core/ports/metadata-store.ts';
import { errorEvent, OPEN_TIMEOUT_MS, openToolHarness, type ToolHarness } from '../../../test/support/tool-harness.ts';

let h: ToolHarness;
let typeA: Issue;
let typeB: Issue;
let warning: Issue;
let shop: Issue;
let otherOrg: Issue;

beforeAll(async () => {
  h = await openToolHarness();
  typeA = await h.sendEvent(h.projects.web, errorEvent('TypeError', 'first', { fingerprint: ['a'] }));
  typeB = await h.sendEvent(h.projects.web, errorEvent('TypeError', 'second', { fingerprint: ['b'] }));
  warning = await h.sendEvent(h.projects.web, { message: 'slow TypeError handler', level: 'warning' });
  shop = await h.sendEvent(h.projects.shop, errorEvent('TypeError', 'cart failed'));
  otherOrg = await h.sendEvent(h.projects.otherWeb, errorEvent('TypeError', 'other organization only'));
}, OPEN_TIMEOUT_MS);
afterAll(() => h.close());

const statuses = async (...issues: Issue[]) =>
  Promise.all(issues.map(async (issue) => (await h.stores.metadata.getIssue(issue.id))?.status ?? 'deleted'));

describe('bulk_update_issues', () => {
  it('applies one action to every issue matching the filter, and counts what matched and what changed', async () => {
    const result = await h.call('triage', 'bulk_update_issues', {
      project: 'web',
      level: 'error',
      query: 'TypeError',
      action: 'ignore',
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toEqual({ project: 'web', action: 'ignore', matched: 2, changed: 2 });
    expect(result.text).toBe('ignore: 2 issues matched in web, 2 changed.');
    expect(await statuses(typeA, typeB, warning, shop)).toEqual(['ignored', 'ignored', 'unresolved', 'unresolved']);
    const again = await h.call('triage', 'bulk_update_issues', {
      project: 'web',
      status: 'all',
      level: 'error',
      action: 'ignore',
    });
    expect(again.structured).toMatchObject({ matched: 2, changed: 0 });
    const snoozed = await h.call('triageWeb', 'bulk_update_issues', {
      project: 'web',
      status: 'ignored',
      action: 'snooze',
      snoozeMinutes: 60,
    });
    expect(snoozed.structured).toMatchObject({ matched: 2, changed: 2 });
    expect((await h.stores.metadata.getIssue(typeA.id))?.snoozeUntil?.toISOString()).toBe(
      new Date(h.now + 3_600_000).toISOString(),
    );
  });

  it('is refused to read tokens, and delete to triage tokens, before the project is looked up', async () => {
    for (const name of ['read', 'readWeb'] as const) {
      const refused = await h.call(name, 'bulk_update_issues', { project: 'web', action: 'resolve' });
      expect(refused.text).toBe(
        'forbidden: bulk_update_issues needs a token with role triage or higher; this token has role read',
      );
    }
    for (const project of ['web', 'no-such-project']) {
      const refused = await h.call('triage', 'bulk_update_issues', { project, action: 'delete', confirmBulk: true });
      expect(refused.text).toBe('forbidden: delete needs a token with role admin or higher; this token has role triage');
    }
    expect(await statuses(typeA, typeB, warning)).toEqual(['snoozed', 'snoozed', 'unresolved']);
  });

  it('deletes the matching issues and their events for an admin who confirms', async () => {
    const unconfirmed = await h.call('admin', 'bulk_update_issues', { project: 'web', status: 'snoozed', action: 'delete' });
    expect(unconfirmed.text).toBe(
      'invalid_input: delete removes issues and their events for good: pass confirmBulk: true to confirm; nothing was deleted',
    );
    const deleted = await h.call('admin', 'bulk_update_issues', {
      project: 'web',
      status: 'snoozed',
      action: 'delete',
      confirmBulk: true,
    });
    expect(deleted.structured).toEqual({ project: 'web', action: 'delete', matched: 2, changed: 2 });
    expect(await statuses(typeA, typeB, warning)).toEqual(['deleted', 'deleted', 'unresolved']);
    expect(await h.stores.events.countEventsForIssue(h.projects.web.id, typeA.id)).toBe(0);
  });

  it('cannot reach a project out of scope, and tells nothing about it', async () => {
    const hidden = await h.call('triageWeb', 'bulk_update_issues', { project: 'shop', action: 'resolve' });
    const absent = await h.call('triageWeb', 'bulk_update_issues', { project: 'nope', action: 'resolve' });
    expect(hidden.text).toBe('not_found: no project "shop" is visible to this token: list_projects shows the ones that are');
    expect(hidden.text.replace('shop', 'X')).toBe(absent.text.replace('nope', 'X'));
    expect(await statuses(shop)).toEqual(['unresolved']);
  });

  it("changes only its own organization's project of the same slug", async () => {
    const result = await h.call('other', 'bulk_update_issues', { project: 'web', status: 'all', action: 'resolve' });
    expect(result.structured).toMatchObject({ matched: 1, changed: 1 });
    expect(await statuses(otherOrg, warning)).toEqual(['resolved', 'unresolved']);
  });

  it('says what was wrong with the arguments, and changes nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ action: 'snooze' }, 'invalid_input: snooze needs snoozeMinutes (1 to 525600); nothing was changed'],
      [{ action: 'resolve', environment: 'staging' }, 'unknown key "environment"'],
      [
        { action: 'resolve', shortIds: [warning.shortId] },
        'accepted keys are project, status, level, query, action, snoozeMinutes, confirmBulk',
      ],
      [{ action: 'resolve', level: 'critical' }, 'at level'],
      [{ action: 'resolve', query: 'x'.repeat(201) }, 'Too big: expected string to have <=200 characters at query'],
      [{}, 'at action'],
    ];
    for (const [args, message] of cases) {
      const refused = await h.call('triage', 'bulk_update_issues', { project: 'web', ...args });
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(refused.text, JSON.stringify(args)).toContain(message);
    }
    expect(await statuses(warning)).toEqual(['unresolved']);
  });

  it('takes the search syntax in query, and applies the action to exactly what it matches', async () => {
    const send = (value: string, extra: Record<string, unknown>) =>
      h.sendEvent(h.projects.web, errorEvent('SyntaxError', value, { fingerprint: [value], ...extra }));
    const staging = await send('bulk one', { environment: 'staging' });
    const production = await send('bulk two', {});
    const fatal = await send('bulk three', { environment: 'staging', level: 'fatal' });
    const resolved = await h.call('triage', 'bulk_update_issues', {
      project: 'web',
      query: '"SyntaxError: bulk" environment:staging !level:fatal',
      action: 'resolve',
    });
    expect(resolved.structured, resolved.text).toEqual({ project: 'web', action: 'resolve', matched: 1, changed: 1 });
    expect(await statuses(staging, production, fatal)).toEqual(['resolved', 'unresolved', 'unresolved']);
    const undone = await h.call('triage', 'bulk_update_issues', {
      project: 'web',
      query: 'is:resolved SyntaxError',
      action: 'unresolve',
    });
    expect(undone.structured).toMatchObject({ matched: 1, changed: 1 });
    expect(await statuses(staging, production, fatal)).toEqual(['unresolved', 'unresolved', 'unresolved']);
  });

  it('refuses a bad query, or one a filter contradicts, naming the token, and changes nothing', async () => {
    const before = await statuses(warning);
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { query: 'level:loud' },
        'invalid_input: invalid search at "level:loud": level: takes one of debug, info, warning, error, fatal',
      ],
      [{ query: 'release:web@1.0.0' }, 'invalid search at "release:web@1.0.0": Errata keeps the first and last release'],
      [{ query: '"slow TypeError' }, 'invalid search at "\\"slow TypeError": unterminated quote'],
      [{ query: '!is:all' }, 'invalid search at "!is:all"'],
      [{ status: 'unresolved', query: 'is:resolved' }, 'status "unresolved" and the query\'s "is:resolved" disagree'],
    ];
    for (const [args, message] of cases) {
      const refused = await h.call('triage', 'bulk_update_issues', { project: 'web', action: 'resolve', ...args });
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(refused.text, JSON.stringify(args)).toContain(message);
    }
    expect(await statuses(warning)).toEqual(before);
  });

  it('returns counts only: no captured text, so no envelope', async () => {
    const result = await h.call('triage', 'bulk_update_issues', {
      project: 'web',
      query: 'nothing has this title',
      action: 'resolve',
    });
    expect(result.structured).toMatchObject({ matched: 0, changed: 0 });
    expect(result.text).not.toContain('<untrusted-data>');
  });
});
