// The issue lifecycle (SPEC leaves transitions open; these are ours). Triage actions move an
// issue between unresolved, resolved, ignored and snoozed; events move it back on their own:
// a snooze ends when its time is up, and a resolved issue regresses when an event newer than
// its resolution marker arrives (unless the marker names a release the event's release
// predates). Pure: the stores apply what these functions decide.
import type { Role } from '../auth/roles.ts';
import { UserInputError } from '../errors.ts';
import type { IssueStatus } from '../ports/metadata-store.ts';

export const ISSUE_ACTIONS = ['resolve', 'unresolve', 'ignore', 'snooze', 'delete'] as const;
export type IssueAction = (typeof ISSUE_ACTIONS)[number];

/** What the activity log records: a triage action, or a change the events caused. */
export type ActivityKind = IssueAction | 'regression' | 'snooze_expired';

/** Stamped by a resolve; check_resolution and regressions compare fresh events with it. */
export interface ResolutionMarker {
  /** ISO 8601. */
  resolvedAt: string;
  /** The agent token's name or the person's email that resolved it. */
  by: string;
  /** Whether `by` is a person or an agent token; absent on markers from before people could resolve (an agent's). */
  byKind?: ActorKind;
  commit?: string;
  release?: string;
  note?: string;
}

/** Who triages: a person signed in to the dashboard or an agent token, by email or token name. */
export type ActorKind = 'person' | 'agent';
export interface TriageActor {
  kind: ActorKind;
  name: string;
}

export interface IssueState {
  status: IssueStatus;
  resolution: ResolutionMarker | null;
  snoozeUntil: Date | null;
}

export interface ActionRequest {
  action: Exclude<IssueAction, 'delete'>;
  snoozeMinutes?: number;
  commit?: string;
  release?: string;
  note?: string;
}

/** The longest snooze: a year. Longer is "ignore". */
export const MAX_SNOOZE_MINUTES = 525_600;

/** delete is destructive and needs admin; every other action needs triage. */
export function minimumRoleFor(action: IssueAction): Role {
  return action === 'delete' ? 'admin' : 'triage';
}

/** The state an action leads to, from any state. */
export function stateAfterAction(request: ActionRequest, actor: TriageActor, now: Date): IssueState {
  switch (request.action) {
    case 'resolve':
      return {
        status: 'resolved',
        resolution: {
          resolvedAt: now.toISOString(),
          by: actor.name,
          byKind: actor.kind,
          ...(request.commit ? { commit: request.commit } : {}),
          ...(request.release ? { release: request.release } : {}),
          ...(request.note ? { note: request.note } : {}),
        },
        snoozeUntil: null,
      };
    // Any other action ends what a resolve stamped: check_resolution then has nothing to check.
    case 'unresolve':
      return { status: 'unresolved', resolution: null, snoozeUntil: null };
    case 'ignore':
      return { status: 'ignored', resolution: null, snoozeUntil: null };
    case 'snooze': {
      const minutes = request.snoozeMinutes;
      if (minutes === undefined || !Number.isInteger(minutes) || minutes < 1 || minutes > MAX_SNOOZE_MINUTES) {
        throw new UserInputError(`snooze needs snoozeMinutes, a whole number from 1 to ${MAX_SNOOZE_MINUTES}`);
      }
      return { status: 'snoozed', resolution: null, snoozeUntil: new Date(now.getTime() + minutes * 60_000) };
    }
  }
}

/** An event seen for an issue, as the lifecycle needs it. */
export interface SeenEvent {
  /** Float seconds since the epoch. */
  timestamp: number;
  release: string | null;
}

/**
 * When each release was first seen (ms since the epoch), or undefined for a release never seen.
 * A marker release never seen counts as later than everything: "resolved in 2.0" before 2.0 ships.
 */
export type ReleaseFirstSeen = (version: string) => number | undefined;

/**
 * Whether an event regresses a resolution: it happened after the resolve, and the marker names
 * no release, or the event's release was not first seen before the marker's release. An event
 * without a release cannot be shown to be old, so it regresses.
 */
export function regresses(marker: ResolutionMarker, event: SeenEvent, firstSeen: ReleaseFirstSeen): boolean {
  if (event.timestamp * 1000 <= Date.parse(marker.resolvedAt)) return false;
  if (!marker.release || event.release === null) return true;
  if (event.release === marker.release) return true;
  const eventRelease = firstSeen(event.release) ?? event.timestamp * 1000;
  const markerRelease = firstSeen(marker.release) ?? Number.POSITIVE_INFINITY;
  return eventRelease >= markerRelease;
}

/** What new events do to an issue's state, if anything. */
interface EventTransition<E extends SeenEvent> {
  state: IssueState;
  activity: ActivityKind;
  /** The event that caused it. */
  event: E;
}

/** The events in time order; the first that regresses a resolution (or outlasts a snooze) decides. */
export function transitionOnEvents<E extends SeenEvent>(
  state: IssueState,
  events: E[],
  firstSeen: ReleaseFirstSeen,
): EventTransition<E> | undefined {
  if (state.status === 'resolved') {
    const marker = state.resolution ?? { resolvedAt: new Date(0).toISOString(), by: 'unknown' };
    const regressing = events.find((event) => regresses(marker, event, firstSeen));
    if (!regressing) return undefined;
    // The marker stays: check_resolution reports "regressed" against it until the next action.
    return { state: { ...state, status: 'unresolved' }, activity: 'regression', event: regressing };
  }
  if (state.status === 'snoozed' && state.snoozeUntil) {
    const until = state.snoozeUntil.getTime();
    const outlasting = events.find((event) => event.timestamp * 1000 >= until);
    if (!outlasting) return undefined;
    return {
      state: { status: 'unresolved', resolution: null, snoozeUntil: null },
      activity: 'snooze_expired',
      event: outlasting,
    };
  }
  return undefined;
}

export type ResolutionCheck = 'held' | 'regressed' | 'no_resolution';

/**
 * check_resolution's verdict: no marker, or the marker with the issue back to unresolved (a
 * regression the dispatcher applied), or still resolved: held.
 */
export function resolutionCheck(state: IssueState): ResolutionCheck {
  if (!state.resolution) return 'no_resolution';
  return state.status === 'resolved' ? 'held' : 'regressed';
}
