// Is a project's SDK set up? What verify_installation answers and the dashboard's project page
// shows live: an active DSN key exists, an event arrived, and whether the latest one was the
// install guides' synthetic test event (core/agent/test-event.ts) or a real error or message.
import { isTestEvent } from '../agent/test-event.ts';
import type { EventStore } from '../ports/event-store.ts';
import type { MetadataStore, Project } from '../ports/metadata-store.ts';

type InstallationVerdict = 'no_dsn_key' | 'waiting_for_first_event' | 'test_event_received' | 'real_event_received';

export interface InstallationState {
  /** An active DSN key exists. */
  dsnKeyExists: boolean;
  latestEvent: {
    eventId: string;
    receivedAt: Date;
    kind: 'test_event' | 'error' | 'message';
    /** The short id of its issue (null if the issue is gone). */
    shortId: string | null;
  } | null;
  verdict: InstallationVerdict;
}

export async function installationState(
  stores: { metadata: Pick<MetadataStore, 'listProjectKeys' | 'listIssues'>; events: Pick<EventStore, 'latestEventForIssue'> },
  project: Pick<Project, 'id'>,
): Promise<InstallationState> {
  const dsnKeyExists = (await stores.metadata.listProjectKeys(project.id)).some((key) => key.active);
  // The project's newest event is the newest of its most recently seen issue (an issue's last
  // seen is its newest event's time), found through two indexes: sorting the project's events
  // for it read every one (0.75 s for 100,000 in the embedded database, which answers one query
  // at a time).
  const { items } = await stores.metadata.listIssues({ projectId: project.id, status: 'all', sort: 'lastSeen', limit: 1 });
  const issue = items[0];
  const latest = issue && (await stores.events.latestEventForIssue(project.id, issue.id));
  if (!latest) return { dsnKeyExists, latestEvent: null, verdict: dsnKeyExists ? 'waiting_for_first_event' : 'no_dsn_key' };
  const kind = isTestEvent(latest.payload) ? 'test_event' : latest.payload.type === 'error' ? 'error' : 'message';
  return {
    dsnKeyExists,
    latestEvent: { eventId: latest.eventId, receivedAt: new Date(latest.receivedAt * 1000), kind, shortId: issue.shortId },
    verdict: !dsnKeyExists ? 'no_dsn_key' : kind === 'test_event' ? 'test_event_received' : 'real_event_received',
  };
}
