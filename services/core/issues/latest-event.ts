// The event an issue page and get_issue_context show by default: the issue's newest, in one
// environment when asked. The issue keeps every environment its events came with (recorded
// with each occurrence, before its event is stored), so an environment outside that list has
// no event to find; asking the store anyway walks every event of the issue, newest first,
// looking for one (56-60 ms per 90,000 events in PGlite).
import type { EventStore, StoredEvent } from '../ports/event-store.ts';
import { MAX_ISSUE_ENVIRONMENTS, type Issue } from '../ports/issue-store.ts';

export async function latestIssueEvent(
  events: Pick<EventStore, 'latestEventForIssue'>,
  issue: Pick<Issue, 'id' | 'projectId' | 'environments'>,
  environment?: string,
): Promise<StoredEvent | undefined> {
  // A full list stopped growing: an environment outside it may still have events.
  const complete = issue.environments.length < MAX_ISSUE_ENVIRONMENTS;
  if (environment !== undefined && complete && !issue.environments.includes(environment)) return undefined;
  return events.latestEventForIssue(issue.projectId, issue.id, environment);
}
