import { describe, expect, it } from 'vitest';
import { UserInputError } from '../errors.ts';
import {
  ISSUE_ACTIONS,
  MAX_SNOOZE_MINUTES,
  minimumRoleFor,
  regresses,
  resolutionCheck,
  stateAfterAction,
  transitionOnEvents,
  type IssueState,
  type ReleaseFirstSeen,
  type ResolutionMarker,
  type SeenEvent,
} from './lifecycle.ts';

const NOW = new Date('2030-01-01T12:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;
const ALICE = { kind: 'person', name: 'alice@example.com' } as const;
const CI = { kind: 'agent', name: 'ci' } as const;

const marker: ResolutionMarker = { resolvedAt: NOW.toISOString(), by: 'ci' };
const resolved: IssueState = { status: 'resolved', resolution: marker, snoozeUntil: null };
const unresolved: IssueState = { status: 'unresolved', resolution: null, snoozeUntil: null };
const ignored: IssueState = { status: 'ignored', resolution: null, snoozeUntil: null };
const snoozed: IssueState = { status: 'snoozed', resolution: null, snoozeUntil: new Date(NOW.getTime() + 3_600_000) };
// A regressed issue: back to unresolved, the marker kept.
const regressed: IssueState = { status: 'unresolved', resolution: marker, snoozeUntil: null };
const STARTING_STATES = { resolved, unresolved, ignored, snoozed, regressed };

const neverSeen: ReleaseFirstSeen = () => undefined;
const seenAt =
  (times: Record<string, number>): ReleaseFirstSeen =>
  (version) =>
    times[version];
const event = (secondsAfterNow: number, release: string | null = null): SeenEvent => ({
  timestamp: NOW_S + secondsAfterNow,
  release,
});

describe('stateAfterAction', () => {
  // The result never depends on where the issue was: each action fully decides status, marker
  // and snooze. Checked from each starting state (including a regressed one) all the same.
  for (const [name, from] of Object.entries(STARTING_STATES)) {
    describe(`from ${name} (${from.status})`, () => {
      it('resolve stamps a fresh marker with the time and the actor, and ends any snooze', () => {
        expect(stateAfterAction({ action: 'resolve' }, ALICE, NOW)).toEqual({
          status: 'resolved',
          resolution: { resolvedAt: '2030-01-01T12:00:00.000Z', by: 'alice@example.com', byKind: 'person' },
          snoozeUntil: null,
        });
      });

      it('unresolve clears the marker and any snooze', () => {
        expect(stateAfterAction({ action: 'unresolve' }, ALICE, NOW)).toEqual(unresolved);
      });

      it('ignore clears the marker and any snooze', () => {
        expect(stateAfterAction({ action: 'ignore' }, ALICE, NOW)).toEqual(ignored);
      });

      it('snooze sets snoozeUntil to now plus the minutes and clears the marker', () => {
        expect(stateAfterAction({ action: 'snooze', snoozeMinutes: 30 }, ALICE, NOW)).toEqual({
          status: 'snoozed',
          resolution: null,
          snoozeUntil: new Date('2030-01-01T12:30:00.000Z'),
        });
      });
    });
  }

  it('resolve keeps commit, release and note when given', () => {
    const state = stateAfterAction({ action: 'resolve', commit: 'abc123', release: '2.0', note: 'fixed' }, ALICE, NOW);
    expect(state.resolution).toEqual({
      resolvedAt: NOW.toISOString(),
      by: 'alice@example.com',
      byKind: 'person',
      commit: 'abc123',
      release: '2.0',
      note: 'fixed',
    });
  });

  it('resolve stores only the optional fields that were given', () => {
    const state = stateAfterAction({ action: 'resolve', release: '2.0' }, ALICE, NOW);
    expect(state.resolution).toEqual({
      resolvedAt: NOW.toISOString(),
      by: 'alice@example.com',
      byKind: 'person',
      release: '2.0',
    });
    expect(Object.keys(state.resolution!)).not.toContain('commit');
    expect(Object.keys(state.resolution!)).not.toContain('note');
  });

  it('resolve ignores commit, release and note on other actions', () => {
    expect(stateAfterAction({ action: 'ignore', commit: 'abc', release: '2.0', note: 'n' }, CI, NOW).resolution).toBeNull();
  });

  it('snooze accepts 1 and MAX_SNOOZE_MINUTES', () => {
    expect(stateAfterAction({ action: 'snooze', snoozeMinutes: 1 }, CI, NOW).snoozeUntil).toEqual(
      new Date(NOW.getTime() + 60_000),
    );
    expect(stateAfterAction({ action: 'snooze', snoozeMinutes: MAX_SNOOZE_MINUTES }, CI, NOW).snoozeUntil).toEqual(
      new Date(NOW.getTime() + MAX_SNOOZE_MINUTES * 60_000),
    );
  });

  for (const snoozeMinutes of [undefined, 0, -5, 1.5, MAX_SNOOZE_MINUTES + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`snooze with snoozeMinutes ${snoozeMinutes} is a UserInputError`, () => {
      expect(() => stateAfterAction({ action: 'snooze', snoozeMinutes }, CI, NOW)).toThrow(UserInputError);
    });
  }
});

describe('minimumRoleFor', () => {
  it('delete needs admin, every other action triage', () => {
    expect(Object.fromEntries(ISSUE_ACTIONS.map((action) => [action, minimumRoleFor(action)]))).toEqual({
      resolve: 'triage',
      unresolve: 'triage',
      ignore: 'triage',
      snooze: 'triage',
      delete: 'admin',
    });
  });
});

describe('regresses', () => {
  it('never for an event before or at the resolve', () => {
    expect(regresses(marker, event(-1), neverSeen)).toBe(false);
    expect(regresses(marker, event(0), neverSeen)).toBe(false);
    expect(regresses(marker, event(-0.001), neverSeen)).toBe(false);
  });

  it('for any later event when the marker names no release', () => {
    expect(regresses(marker, event(0.001), neverSeen)).toBe(true);
    expect(regresses(marker, event(60, '1.0'), seenAt({ '1.0': 0 }))).toBe(true);
  });

  describe('with a marker release', () => {
    const withRelease: ResolutionMarker = { ...marker, release: '2.0' };
    const T2 = NOW.getTime() - 1_000;
    const firstSeen = seenAt({ '1.0': T2 - 86_400_000, '2.0': T2, '3.0': T2 + 500 });

    it('not for a release first seen before it', () => {
      expect(regresses(withRelease, event(60, '1.0'), firstSeen)).toBe(false);
    });

    it('for the marker release itself', () => {
      expect(regresses(withRelease, event(60, '2.0'), firstSeen)).toBe(true);
    });

    it('for a release first seen after it, or at the same moment', () => {
      expect(regresses(withRelease, event(60, '3.0'), firstSeen)).toBe(true);
      expect(regresses(withRelease, event(60, '2.0-hotfix'), seenAt({ '2.0': T2, '2.0-hotfix': T2 }))).toBe(true);
    });

    it('for an event without a release: it cannot be shown to be old', () => {
      expect(regresses(withRelease, event(60, null), firstSeen)).toBe(true);
    });

    it('a release never seen counts as first seen at the event time', () => {
      // Event at NOW+60s, later than 2.0's first sighting: regresses.
      expect(regresses(withRelease, event(60, '4.0'), firstSeen)).toBe(true);
      // Same unseen release, but 2.0 first seen after the event's time: does not.
      expect(regresses(withRelease, event(60, '4.0'), seenAt({ '2.0': NOW.getTime() + 120_000 }))).toBe(false);
    });

    it('a marker release never seen counts as infinitely late', () => {
      const unseenMarker = seenAt({ '1.0': T2, '3.0': T2 + 500 });
      expect(regresses(withRelease, event(60, '1.0'), unseenMarker)).toBe(false);
      expect(regresses(withRelease, event(60, '3.0'), unseenMarker)).toBe(false);
      expect(regresses(withRelease, event(60, '9.9'), neverSeen)).toBe(false);
      // The marker release itself, or no release at all, still regresses.
      expect(regresses(withRelease, event(60, '2.0'), neverSeen)).toBe(true);
      expect(regresses(withRelease, event(60, null), neverSeen)).toBe(true);
    });

    it('still never for an event before the resolve', () => {
      expect(regresses(withRelease, event(-60, '3.0'), firstSeen)).toBe(false);
    });
  });
});

describe('transitionOnEvents', () => {
  it('regresses a resolved issue to unresolved, keeping the marker, on the first regressing event', () => {
    const events = [
      { ...event(-10), id: 'old' },
      { ...event(5), id: 'first' },
      { ...event(10), id: 'second' },
    ];
    const transition = transitionOnEvents(resolved, events, neverSeen);
    expect(transition).toEqual({
      state: { status: 'unresolved', resolution: marker, snoozeUntil: null },
      activity: 'regression',
      event: events[1],
    });
  });

  it('leaves a resolved issue alone when no event regresses it', () => {
    expect(transitionOnEvents(resolved, [event(-10), event(0)], neverSeen)).toBeUndefined();
    expect(transitionOnEvents(resolved, [], neverSeen)).toBeUndefined();
  });

  it('skips events of releases older than the marker release', () => {
    const withRelease: IssueState = { ...resolved, resolution: { ...marker, release: '2.0' } };
    const firstSeen = seenAt({ '1.0': 0, '2.0': 1_000 });
    const events = [event(5, '1.0'), event(6, '2.0')];
    expect(transitionOnEvents(withRelease, events, firstSeen)?.event).toBe(events[1]);
    expect(transitionOnEvents(withRelease, [event(5, '1.0')], firstSeen)).toBeUndefined();
  });

  it('treats a resolved issue without a marker as resolved at the epoch', () => {
    const bare: IssueState = { status: 'resolved', resolution: null, snoozeUntil: null };
    expect(transitionOnEvents(bare, [event(-1_000_000)], neverSeen)?.activity).toBe('regression');
  });

  it('wakes a snoozed issue on an event at or after snoozeUntil', () => {
    const until = snoozed.snoozeUntil!.getTime() / 1000;
    const atEnd = { timestamp: until, release: null };
    const transition = transitionOnEvents(snoozed, [event(0), atEnd, { timestamp: until + 1, release: null }], neverSeen);
    expect(transition).toEqual({ state: unresolved, activity: 'snooze_expired', event: atEnd });
  });

  it('keeps a snoozed issue snoozed while its events are earlier than snoozeUntil', () => {
    const until = snoozed.snoozeUntil!.getTime() / 1000;
    expect(transitionOnEvents(snoozed, [event(0), { timestamp: until - 0.001, release: null }], neverSeen)).toBeUndefined();
  });

  it('does nothing to unresolved or ignored issues', () => {
    const events = [event(-10), event(10), event(1_000_000)];
    expect(transitionOnEvents(unresolved, events, neverSeen)).toBeUndefined();
    expect(transitionOnEvents(regressed, events, neverSeen)).toBeUndefined();
    expect(transitionOnEvents(ignored, events, neverSeen)).toBeUndefined();
  });
});

describe('resolutionCheck', () => {
  it('held while resolved, regressed once back to unresolved with the marker, else no_resolution', () => {
    expect(resolutionCheck(resolved)).toBe('held');
    expect(resolutionCheck(regressed)).toBe('regressed');
    expect(resolutionCheck(unresolved)).toBe('no_resolution');
    expect(resolutionCheck(ignored)).toBe('no_resolution');
    expect(resolutionCheck(snoozed)).toBe('no_resolution');
  });

  it('no_resolution after any action other than resolve', () => {
    for (const action of ['unresolve', 'ignore'] as const) {
      expect(resolutionCheck(stateAfterAction({ action }, CI, NOW))).toBe('no_resolution');
    }
    expect(resolutionCheck(stateAfterAction({ action: 'snooze', snoozeMinutes: 5 }, CI, NOW))).toBe('no_resolution');
    expect(resolutionCheck(stateAfterAction({ action: 'resolve' }, CI, NOW))).toBe('held');
  });
});
