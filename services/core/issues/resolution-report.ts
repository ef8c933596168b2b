// What check_resolution says about an issue, for the MCP tool and the issue page alike: whether
// the last resolve held, and the events seen since its marker.
import type { EventStore, IssueEventStats } from '../ports/event-store.ts';
import type { Issue } from '../ports/metadata-store.ts';
import { resolutionCheck, type ResolutionCheck } from './lifecycle.ts';

export interface ResolutionReport {
  status: ResolutionCheck;
  /** Events newer than the marker; undefined without a marker. */
  since: IssueEventStats | undefined;
}

export async function resolutionReport(events: Pick<EventStore, 'issueEventStats'>, issue: Issue): Promise<ResolutionReport> {
  const marker = issue.resolution;
  const since = marker
    ? await events.issueEventStats(issue.projectId, issue.id, Date.parse(marker.resolvedAt) / 1000 + 1e-6)
    : undefined;
  return { status: resolutionCheck(issue), since };
}
