import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_EVENT_MESSAGE, TEST_EVENT_TAG } from '../../core/agent/test-event.ts';
import { errorEvent, OPEN_TIMEOUT_MS, openToolHarness, type ToolHarness } from '../../../test/support/tool-harness.ts';

let h: ToolHarness;
beforeAll(async () => {
  h = await openToolHarness();
}, OPEN_TIMEOUT_MS);
afterAll(() => h.close());

const verify = async (args: Record<string, unknown> = { project: 'web' }, token: Parameters<ToolHarness['call']>[0] = 'read') => {
  const result = await h.call(token, 'verify_installation', args);
  expect(result.isError, result.text).toBe(false);
  return result.structured;
};

describe('verify_installation', () => {
  it('waits for the first event of a project with a key, for every role', async () => {
    for (const name of ['read', 'triage', 'admin', 'readWeb', 'triageWeb', 'adminWeb'] as const) {
      expect(await verify({ project: 'web' }, name)).toEqual({
        project: 'web',
        dsnKeyExists: true,
        eventReceived: false,
        latestEvent: null,
        expiredIssue: null,
        verdict: 'waiting_for_first_event',
        nextStep:
          'send the test event from the install guide (events take a few seconds to be processed), then call verify_installation again',
      });
    }
  });

  it("tells the install guide's test event from the application's own events, by the latest one", async () => {
    const test = await h.sendEvent(h.projects.web, {
      event_id: '1'.repeat(32),
      message: TEST_EVENT_MESSAGE,
      level: 'info',
      tags: { [TEST_EVENT_TAG]: 'true' },
    });
    expect(await verify()).toMatchObject({
      eventReceived: true,
      latestEvent: {
        eventId: '1'.repeat(32),
        receivedAt: new Date(h.now).toISOString(),
        kind: 'test_event',
        shortId: test.shortId,
      },
      verdict: 'test_event_received',
      nextStep: 'the SDK reaches Errata; mint a per-repository triage token for day-to-day work',
    });
    h.now += 1000;
    await h.sendEvent(h.projects.web, { message: 'a message of the app', level: 'info' });
    expect(await verify()).toMatchObject({ latestEvent: { kind: 'message' }, verdict: 'real_event_received' });
    h.now += 1000;
    const error = await h.sendEvent(h.projects.web, errorEvent('TypeError', 'checkout failed', { event_id: '2'.repeat(32) }));
    expect(await verify()).toMatchObject({
      latestEvent: { eventId: '2'.repeat(32), kind: 'error', shortId: error.shortId },
      verdict: 'real_event_received',
      nextStep: 'events are flowing; use whats_new and get_issue_context to work on them',
    });
  });

  it('still finds the latest stored event when the most recently seen issue has none stored', async () => {
    // An issue is recorded before its event is written, and a write may fail for good: the
    // project's newest event is then another issue's.
    h.now += 1000;
    const kept = await h.sendEvent(h.projects.web, errorEvent('RangeError', 'kept', { event_id: '3'.repeat(32) }));
    h.now += 1000;
    const bare = await h.sendEvent(h.projects.web, errorEvent('SyntaxError', 'no event stored', { event_id: '4'.repeat(32) }));
    await h.stores.events.deleteEventsForIssues(h.projects.web.id, [bare.id]);
    expect(await verify()).toMatchObject({ latestEvent: { eventId: '3'.repeat(32), shortId: kept.shortId } });
  });

  it('says events_expired, not waiting_for_first_event, once retention has deleted every event of a project with issues', async () => {
    const tenDays = 10 * 86_400_000;
    const old = await h.sendEvent(h.projects.shop, errorEvent('TypeError', 'long ago'), h.now - tenDays);
    expect(await verify({ project: 'shop' })).toMatchObject({ verdict: 'real_event_received', expiredIssue: null });
    // Retention's own call, with a cutoff of a week: the issue stays, with its counts.
    expect(await h.stores.events.deleteEventsBefore((h.now - 7 * 86_400_000) / 1000)).toBe(1);
    const result = await h.call('read', 'verify_installation', { project: 'shop' });
    expect(result.structured).toEqual({
      project: 'shop',
      dsnKeyExists: true,
      // Before, false: "no event ever arrived", beside a verdict saying events came.
      eventReceived: true,
      latestEvent: null,
      expiredIssue: { shortId: old.shortId, lastSeen: new Date(h.now - tenDays).toISOString() },
      verdict: 'events_expired',
      nextStep:
        'events came before (issues remain) but retention has deleted them all; send the test event from the install guide to check the SDK still reaches Errata, then call verify_installation again',
    });
    expect(result.text.split('\n')[0]).toMatch(/^shop: events expired\. Next: events came before/);

    // An issue seen within retention's shortest period (a day) whose event is not stored: it is
    // on its way (the issue is recorded first) or held up by an outage, not pruned.
    const recent = await h.sendEvent(h.projects.shop, errorEvent('RangeError', 'just now'), h.now - 3_600_000);
    await h.stores.events.deleteEventsForIssues(h.projects.shop.id, [recent.id]);
    expect(await verify({ project: 'shop' })).toMatchObject({
      latestEvent: null,
      expiredIssue: null,
      verdict: 'waiting_for_first_event',
    });
  });

  it('says no_dsn_key when no key of the project is active', async () => {
    const [key] = await h.stores.metadata.listProjectKeys(h.projects.shop.id);
    await h.stores.metadata.setProjectKeyActive(key!.publicKey, false);
    const result = await h.call('read', 'verify_installation', { project: 'shop' });
    expect(result.structured).toMatchObject({ dsnKeyExists: false, verdict: 'no_dsn_key' });
    expect(result.text.split('\n')[0]).toBe(
      'shop: no dsn key. Next: an admin creates or enables a key (get_dsn shows the keys).',
    );
  });

  it('answers for a project out of scope exactly as for one that does not exist', async () => {
    const hidden = await h.call('readWeb', 'verify_installation', { project: 'shop' });
    const absent = await h.call('readWeb', 'verify_installation', { project: 'nope' });
    expect(hidden.text).toBe('not_found: no project "shop" is visible to this token: list_projects shows the ones that are');
    expect(hidden.text.replace('shop', 'X')).toBe(absent.text.replace('nope', 'X'));
  });

  it("verifies another organization's own project of the same slug, never ours", async () => {
    expect(await verify({ project: 'web' }, 'other')).toMatchObject({ eventReceived: false, verdict: 'waiting_for_first_event' });
  });

  it('says which argument was wrong, and carries no captured text', async () => {
    for (const [args, message] of [
      [{}, 'invalid_input: project is required for an organization-wide token: pass a slug list_projects shows'],
      [{ project: 'web', sdk: 'node' }, 'unknown key "sdk"'],
    ] as const) {
      const refused = await h.call('read', 'verify_installation', args);
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(refused.text).toContain(message);
    }
    const { text } = await h.call('read', 'verify_installation', { project: 'web' });
    expect(text).not.toContain('checkout failed');
    expect(text).not.toContain('<untrusted-data>');
  });
});
