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
    expect(result.structured).toEqual({
      project: 'web',
      action: 'ignore',
      dryRun: false,
      matched: 2,
      changed: 2,
      alreadyInStatus: 0,
      shortIds: [typeB.shortId, typeA.shortId],
      moreShortIds: 0,
    });
    // The summary, then every fact as one line of JSON, for clients that give the model only the text.
    const [summary, facts, ...rest] = result.text.split('\n');
    expect(summary).toBe(`ignore: 2 issues matched in web, 2 changed status: ${typeB.shortId}, ${typeA.shortId}.`);
    expect(JSON.parse(facts!)).toEqual(result.structured);
    expect(rest).toEqual([]);
    expect(await statuses(typeA, typeB, warning, shop)).toEqual(['ignored', 'ignored', 'unresolved', 'unresolved']);
    const again = await h.call('triage', 'bulk_update_issues', {
      project: 'web',
      status: 'all',
      level: 'error',
      action: 'ignore',
    });
    expect(again.structured).toMatchObject({ matched: 2, changed: 0, alreadyInStatus: 2, shortIds: [] });
    expect(again.text.split('\n')[0]).toBe(
      'ignore: 2 issues matched in web, 0 changed status; the other 2 were ignored already (unchanged).',
    );
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
        'forbidden: bulk_update_issues needs a token with role triage or higher; this token has role read. ' +
          `An administrator mints one with: errata createtoken --role triage${name === 'readWeb' ? ' --project web' : ''} --organization default`,
      );
    }
    for (const project of ['web', 'no-such-project']) {
      const refused = await h.call('triage', 'bulk_update_issues', { project, action: 'delete', confirmBulk: true });
      expect(refused.text).toBe(
        'forbidden: delete needs a token with role admin or higher; this token has role triage. ' +
          'An administrator mints one with: errata createtoken --role admin --organization default',
      );
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
    expect(deleted.structured).toMatchObject({ project: 'web', action: 'delete', matched: 2, changed: 2 });
    expect(deleted.structured.shortIds.sort()).toEqual([typeA.shortId, typeB.shortId].sort());
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
      [{ action: 'resolve', since: '1h' }, 'unknown key "since"'],
      [{ action: 'resolve', sort: 'title' }, 'at sort'],
      [{ action: 'resolve', shortIds: [] }, 'at shortIds'],
      [
        { action: 'resolve', shortIds: [warning.shortId], query: 'x', sort: 'events' },
        'invalid_input: shortIds names the issues itself: leave out query, sort, or drop shortIds to act on a filter',
      ],
      [
        { action: 'resolve', shortIds: [warning.shortId, shop.shortId] },
        `invalid_input: ${shop.shortId} is in project shop, not web: one call acts on one project's issues`,
      ],
      [
        { action: 'resolve', environment: 'production', query: 'environment:staging' },
        'invalid_input: environment "production" and the query\'s environment:"staging" disagree',
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
    expect(resolved.structured, resolved.text).toMatchObject({
      project: 'web',
      action: 'resolve',
      matched: 1,
      changed: 1,
      shortIds: [staging.shortId],
    });
    expect(await statuses(staging, production, fatal)).toEqual(['resolved', 'unresolved', 'unresolved']);
    // Resolved again: its status stays, its marker is replaced, and the answer says so (before:
    // "0 changed", as if nothing had happened).
    const again = await h.call('triage', 'bulk_update_issues', { shortIds: [staging.shortId], action: 'resolve' });
    expect(again.structured).toMatchObject({ matched: 1, changed: 0, alreadyInStatus: 1 });
    expect(again.text.split('\n')[0]).toBe(
      'resolve: 1 issue matched in web, 0 changed status; the other 1 was resolved already: their resolution marker is now this one.',
    );
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

describe('bulk_update_issues: environment, sort, shortIds, dryRun and the echo', () => {
  const send = (value: string, environment: string) =>
    h.sendEvent(h.projects.web, errorEvent('RangeError', value, { fingerprint: [value], environment }));

  it('filters by environment, orders by sort, and on dryRun changes nothing but says what matches', async () => {
    const quiet = await send('qa quiet', 'qa');
    const loud = await send('qa loud', 'qa');
    await send('qa loud', 'qa');
    await send('qa loud', 'qa');
    const middle = await send('qa middle', 'qa');
    await send('qa middle', 'qa');
    const elsewhere = await send('qa elsewhere', 'production');
    const dry = await h.call('triage', 'bulk_update_issues', {
      project: 'web',
      environment: 'qa',
      sort: 'events',
      action: 'resolve',
      dryRun: true,
    });
    expect(dry.isError, dry.text).toBe(false);
    expect(dry.structured).toEqual({
      project: 'web',
      action: 'resolve',
      dryRun: true,
      matched: 3,
      changed: 0,
      // Before, alreadyInStatus: 0, which read as "none is resolved already".
      shortIds: [loud.shortId, middle.shortId, quiet.shortId],
      moreShortIds: 0,
    });
    expect(dry.text.split('\n')[0]).toBe(
      `resolve (dry run, nothing changed): 3 issues matched in web: ${loud.shortId}, ${middle.shortId}, ${quiet.shortId}.`,
    );
    expect(await statuses(quiet, loud, middle, elsewhere)).toEqual(['unresolved', 'unresolved', 'unresolved', 'unresolved']);
    const done = await h.call('triage', 'bulk_update_issues', { project: 'web', environment: 'qa', action: 'resolve' });
    expect(done.structured).toMatchObject({ matched: 3, changed: 3, dryRun: false });
    expect(await statuses(quiet, loud, middle, elsewhere)).toEqual(['resolved', 'resolved', 'resolved', 'unresolved']);
  });

  it('lets an admin dry-run a delete without confirmBulk, deleting nothing', async () => {
    const doomed = await send('dry delete', 'dry');
    const dry = await h.call('admin', 'bulk_update_issues', {
      project: 'web',
      environment: 'dry',
      action: 'delete',
      dryRun: true,
    });
    expect(dry.structured).toMatchObject({ matched: 1, changed: 0, shortIds: [doomed.shortId] });
    expect(await statuses(doomed)).toEqual(['unresolved']);
  });

  it('acts on the issues shortIds names, in its order, without a project for a project-scoped token', async () => {
    const one = await send('named one', 'named');
    const two = await send('named two', 'named');
    const untouched = await send('named three', 'named');
    const result = await h.call('triageWeb', 'bulk_update_issues', {
      shortIds: [one.shortId, two.shortId.toLowerCase(), one.shortId],
      action: 'ignore',
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({
      project: 'web',
      matched: 2,
      changed: 2,
      shortIds: [one.shortId, two.shortId],
    });
    expect(await statuses(one, two, untouched)).toEqual(['ignored', 'ignored', 'unresolved']);
    const explicit = await h.call('triage', 'bulk_update_issues', {
      project: 'web',
      shortIds: [untouched.shortId],
      action: 'ignore',
    });
    expect(explicit.structured).toMatchObject({ matched: 1, changed: 1, shortIds: [untouched.shortId] });
  });

  it("answers an unknown short id with the project's prefix and newest issue, and a hidden one with the token's own", async () => {
    const newest = await send('the newest', 'named');
    const unknown = await h.call('triageWeb', 'bulk_update_issues', { shortIds: ['WEB-999999'], action: 'ignore' });
    expect(unknown.text).toBe(
      'not_found: no issue "WEB-999999" is visible to this token: short ids look like WEB-APP-12; list_issues shows them; ' +
        `project web's are WEB-<n>, its newest ${newest.shortId}`,
    );
    // Outside the scope or no such project: the same answer, about the token's own project only.
    const hidden = await h.call('triageWeb', 'bulk_update_issues', { shortIds: [shop.shortId], action: 'ignore' });
    expect(hidden.text).toBe(
      `not_found: no issue "${shop.shortId}" is visible to this token: short ids look like WEB-APP-12; list_issues shows them; ` +
        `this token sees only project web: project web's are WEB-<n>, its newest ${newest.shortId}`,
    );
    const absent = await h.call('triageWeb', 'bulk_update_issues', { shortIds: ['NOPE-3'], action: 'ignore' });
    expect(absent.text.replace('NOPE-3', 'X')).toBe(hidden.text.replace(shop.shortId, 'X'));
    expect(hidden.text.replace(shop.shortId, 'X')).not.toMatch(/shop/i);
    expect(await statuses(newest, shop)).toEqual(['unresolved', 'unresolved']);
  });

  it('tells an organization-wide token that names an unknown project prefix where the prefixes are', async () => {
    const unknown = await h.call('triage', 'bulk_update_issues', { project: 'web', shortIds: ['NOPE-3'], action: 'ignore' });
    expect(unknown.text).toBe(
      'not_found: no issue "NOPE-3" is visible to this token: short ids look like WEB-APP-12; list_issues shows them; ' +
        "no project has that prefix: list_projects shows the projects, a short id's prefix being its project's slug in capitals",
    );
  });

  it('takes environment and sort as list_issues does, and refuses a disagreeing environment in the same words', async () => {
    const { tools } = await h.listTools('triage');
    const input = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, any>;
    const [bulk, list] = [input('bulk_update_issues'), input('list_issues')];
    expect(bulk.environment).toEqual(list.environment);
    expect(bulk.sort.enum).toEqual(list.sort.enum);
    expect(bulk.sort.default).toBeUndefined();
    const args = { project: 'web', environment: 'prod "eu"', query: 'environment:staging' };
    const refused = await h.call('triage', 'bulk_update_issues', { ...args, action: 'resolve' });
    expect(refused.text).toBe((await h.call('triage', 'list_issues', args)).text);
    expect(refused.text).toBe(
      'invalid_input: environment "prod \\"eu\\"" and the query\'s environment:"staging" disagree: give the environment in one place',
    );
  });

  it('needs no project for a project-scoped token; an organization-wide one is told to give one', async () => {
    const scoped = await h.call('triageWeb', 'bulk_update_issues', { environment: 'named', action: 'resolve', dryRun: true });
    expect(scoped.structured).toMatchObject({ project: 'web', matched: 1 });
    const wide = await h.call('triage', 'bulk_update_issues', { environment: 'named', action: 'resolve' });
    expect(wide.text).toBe('invalid_input: project is required for an organization-wide token: pass a slug list_projects shows');
  });

  it('echoes the first 50 short ids it changed and counts the rest', async () => {
    for (let i = 0; i < 53; i += 1) await send(`many ${i}`, 'many');
    const result = await h.call('triage', 'bulk_update_issues', { project: 'web', environment: 'many', action: 'ignore' });
    expect(result.structured).toMatchObject({ matched: 53, changed: 53, moreShortIds: 3 });
    expect(result.structured.shortIds).toHaveLength(50);
    expect(new Set(result.structured.shortIds).size).toBe(50);
    expect(result.text.split('\n')[0]).toMatch(/, 53 changed status: WEB-\d+, .* and 3 more\.$/);
  });
});
