// Is a project's SDK set up? What verify_installation answers and the dashboard's project page
// shows live: an active DSN key exists, an event arrived, and whether the latest one was the
// install guides' synthetic test event (core/agent/test-event.ts) or a real error or message;
// or that events came once and retention has deleted them all.
import { MIN_RETENTION_MS } from '../retention-floor.ts';
import { isTestEvent } from '../agent/test-event.ts';
import type { EventStore, StoredEvent } from '../ports/event-store.ts';
import type { Issue } from '../ports/issue-store.ts';
import type { MetadataStore, Project } from '../ports/metadata-store.ts';

type InstallationVerdict =
  'no_dsn_key' | 'waiting_for_first_event' | 'events_expired' | 'test_event_received' | 'real_event_received';

export interface InstallationState {
  /** An active DSN key exists. */
  dsnKeyExists: boolean;
  latestEvent: {
    eventId: string;
    receivedAt: Date;
    kind: 'test_event' | 'error' | 'message';
    /** The short id of its issue. */
    shortId: string;
  } | null;
  /**
   * When events arrived once but retention deleted every one (verdict events_expired): the
   * project's most recently seen issue, whose counts outlive its events.
   */
  expiredIssue: { shortId: string; lastSeen: Date } | null;
  verdict: InstallationVerdict;
}

export async function installationState(
  stores: { metadata: Pick<MetadataStore, 'listProjectKeys' | 'listIssues'>; events: Pick<EventStore, 'latestEventForIssue'> },
  project: Pick<Project, 'id'>,
  now: Date,
): Promise<InstallationState> {
  const dsnKeyExists = (await stores.metadata.listProjectKeys(project.id)).some((key) => key.active);
  // The project's newest event is the newest of its most recently seen issue (an issue's last
  // seen is its newest event's time), found through two indexes: sorting the project's events
  // for it read every one (0.75 s for 100,000 in the embedded database, which answers one query
  // at a time). A few issues are looked at: the newest may not have its event stored yet (the
  // issue is recorded first), and ties in last seen go by when the events were received.
  const { items: issues } = await stores.metadata.listIssues({
    projectId: project.id,
    status: 'all',
    sort: 'lastSeen',
    limit: RECENT_ISSUES,
  });
  let latest: { event: StoredEvent; issue: Issue } | undefined;
  for (const issue of issues) {
    const event = await stores.events.latestEventForIssue(project.id, issue.id);
    if (event && (!latest || newer(event, latest.event))) latest = { event, issue };
  }
  if (!latest) {
    // Issues seen before retention's shortest period whose events are all gone: retention
    // deleted them (issues keep their counts), and "waiting for the first event" would send
    // someone to debug an SDK that worked. An issue seen since may have its event still on its
    // way to the store (the issue is recorded first), or held up by the store's outage. "Seen"
    // is by the events' own time: a first event stamped days back (a slow clock, an offline
    // buffer) reads as expired until it is stored, seconds later.
    const newest = issues[0];
    const expired = dsnKeyExists && newest !== undefined && newest.lastSeen.getTime() < now.getTime() - MIN_RETENTION_MS;
    return {
      dsnKeyExists,
      latestEvent: null,
      expiredIssue: expired ? { shortId: newest.shortId, lastSeen: newest.lastSeen } : null,
      verdict: !dsnKeyExists ? 'no_dsn_key' : expired ? 'events_expired' : 'waiting_for_first_event',
    };
  }
  const { event, issue } = latest;
  const kind = isTestEvent(event.payload) ? 'test_event' : event.payload.type === 'error' ? 'error' : 'message';
  return {
    dsnKeyExists,
    latestEvent: { eventId: event.eventId, receivedAt: new Date(event.receivedAt * 1000), kind, shortId: issue.shortId },
    expiredIssue: null,
    verdict: !dsnKeyExists ? 'no_dsn_key' : kind === 'test_event' ? 'test_event_received' : 'real_event_received',
  };
}

const RECENT_ISSUES = 5;

/** The stores' newest-first order: timestamp, then time received, then event id. */
function newer(a: StoredEvent, b: StoredEvent): boolean {
  if (a.timestamp !== b.timestamp) return a.timestamp > b.timestamp;
  if (a.receivedAt !== b.receivedAt) return a.receivedAt > b.receivedAt;
  return a.eventId > b.eventId;
}
