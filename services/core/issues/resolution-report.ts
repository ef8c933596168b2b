// What check_resolution says about an issue, for the MCP tool and the issue page alike: whether
// the last resolve held, is still waiting for its release, or regressed; the events seen since
// its marker; why they did or did not bring the issue back, and which event did.
import type { EventStore, IssueEventStats } from '../ports/event-store.ts';
import type { Release } from '../ports/issue-store.ts';
import type { Issue, MetadataStore } from '../ports/metadata-store.ts';
import { MIN_RETENTION_MS } from '../retention-floor.ts';
import { resolutionCheck, type ResolutionCheck } from './lifecycle.ts';
import { markerRelease, unseenReleaseText } from './marker-release.ts';

export type ResolutionVerdict = ResolutionCheck | 'awaiting_release';

interface RegressingEvent {
  eventId: string;
  /** Null when the event is no longer stored (retention) or carried none. */
  traceId: string | null;
}

export interface ResolutionReport {
  status: ResolutionVerdict;
  /** Events newer than the marker still stored; undefined without a marker. */
  since: IssueEventStats | undefined;
  /** Events came since the resolve (the issue was seen after it), but none is stored any more. */
  sinceDeleted: boolean;
  /** The marker's release as the project knows it; undefined when the marker names none. */
  markerRelease: { seen: boolean; firstSeen: Date | null } | undefined;
  /** awaiting_release: the project's newest releases (and any of the same version); else empty. */
  recentReleases: Release[];
  /** regressed: the first event newer than the marker that regressed it, as its activity entry records. */
  regressingEvent: RegressingEvent | undefined;
  /** The verdict in plain words, Errata's own: no release name, note or captured text. */
  explanation: string;
}

interface ResolutionPorts {
  events: Pick<EventStore, 'issueEventStats' | 'getEvent'>;
  metadata: Pick<MetadataStore, 'findRelease' | 'listReleases' | 'listIssueActivity'>;
}

export async function resolutionReport(ports: ResolutionPorts, issue: Issue, now: Date): Promise<ResolutionReport> {
  const marker = issue.resolution;
  const check = resolutionCheck(issue);
  if (!marker) {
    return {
      status: check,
      since: undefined,
      sinceDeleted: false,
      markerRelease: undefined,
      recentReleases: [],
      regressingEvent: undefined,
      explanation: 'No resolve to check: resolving the issue stamps a marker that later events are compared with.',
    };
  }
  const [since, release, regressingEvent] = await Promise.all([
    ports.events.issueEventStats(issue.projectId, issue.id, Date.parse(marker.resolvedAt) / 1000 + 1e-6),
    marker.release ? markerRelease(ports.metadata, issue.projectId, marker.release) : undefined,
    check === 'regressed' ? regressingEventOf(ports, issue) : undefined,
  ]);
  const status: ResolutionVerdict = check === 'held' && release && !release.seen ? 'awaiting_release' : check;
  // Retention deletes events, not the issue's last seen: none stored, yet the issue was seen after
  // the resolve, longer ago than any retention keeps events.
  const lastSeen = issue.lastSeen.getTime();
  const sinceDeleted =
    since.count === 0 && lastSeen > Date.parse(marker.resolvedAt) && lastSeen < now.getTime() - MIN_RETENTION_MS;
  let explanation: string;
  if (status === 'awaiting_release') {
    explanation = unseenReleaseText(release!);
  } else if (status === 'regressed') {
    explanation = 'An event newer than the resolve brought the issue back.';
  } else if (sinceDeleted) {
    explanation =
      `Events dated after the resolve came (the issue was last seen ${issue.lastSeen.toISOString()}), but none is stored ` +
      'any more (retention deletes old events): they cannot be counted or checked against the release here.';
  } else if (since.count === 0) {
    explanation = 'No event has come since the resolve.';
  } else if (release?.seen) {
    explanation =
      'Every event since the resolve came from a release first seen before the release the resolve names: builds ' +
      'without the fix. An event of that release, of a later one or without a release would bring the issue back.';
  } else {
    // Dated after the resolve yet recorded before it: an SDK clock ahead of the server's.
    explanation = 'The events dated after the resolve were recorded before it, so they do not count as a regression.';
  }
  return {
    status,
    since,
    sinceDeleted,
    markerRelease: release && { seen: release.seen !== undefined, firstSeen: release.seen?.firstSeen ?? null },
    recentReleases: status === 'awaiting_release' ? release!.recent : [],
    regressingEvent,
    explanation,
  };
}

/**
 * The regression's activity entry records the event's id (the dispatcher writes it); the newest
 * one after the last resolve is the regression of this marker. Its trace id is read from the
 * event itself.
 */
async function regressingEventOf(ports: ResolutionPorts, issue: Issue): Promise<RegressingEvent | undefined> {
  const activity = await ports.metadata.listIssueActivity(issue.id, 20);
  for (const entry of activity) {
    if (entry.kind === 'resolve') return undefined;
    const eventId = entry.details.eventId;
    if (entry.kind === 'regression' && typeof eventId === 'string') {
      const event = await ports.events.getEvent(issue.projectId, eventId);
      return { eventId, traceId: event?.traceId ?? null };
    }
  }
  return undefined;
}
