// One triage action on the issues of a project matching a filter: what bulk_update_issues does
// for an agent and the Issues page's "all N matching" does for a person. One call takes at most
// MAX_BULK_ISSUES, the first in the filter's order, and says whether more matched (Sentry's bulk
// actions likewise take the first 1,000): a broad filter on a flooded project must not hold
// every match in memory. A resolve, ignore or delete run again reaches the rest. Pure over the
// ports; the callers have checked the role and the confirmation.
import type { IssueListQuery, IssueQuery } from '../ports/issue-store.ts';
import type { Issue, MetadataStore } from '../ports/metadata-store.ts';
import type { TriageActor } from './lifecycle.ts';
import { triageIssues, type TriagePorts, type TriageRequest, type TriageResult } from './triage.ts';

/** Issues per store call: bounded work per statement. */
const PAGE = 200;
/** Issues one bulk action takes at most. */
export const MAX_BULK_ISSUES = 10_000;

/** What a bulk action keeps of each match: enough to act on it and name it. */
export type IssueRef = Pick<Issue, 'id' | 'projectId' | 'shortId'>;

export interface Matches {
  /** The first matches in the filter's order, at most the cap. */
  issues: IssueRef[];
  /** Whether more than the cap matched. */
  more: boolean;
}

export async function triageMatching(
  ports: TriagePorts,
  filter: IssueQuery,
  request: TriageRequest,
  actor: TriageActor,
  now: Date,
  cap = MAX_BULK_ISSUES,
): Promise<TriageResult & { more: boolean }> {
  const { issues, more } = await matchingIssues(ports.metadata, filter, cap);
  return { ...(await triageAll(ports, filter.projectId, issues, request, actor, now)), more };
}

/** The first `cap` issues matching the filter, in its sort (default lastSeen), read a page at a time. */
export async function matchingIssues(
  metadata: MetadataStore,
  filter: IssueQuery & Pick<IssueListQuery, 'sort'>,
  cap = MAX_BULK_ISSUES,
): Promise<Matches> {
  // Every match first, then the action: the action changes statuses, which would shift pages.
  // One past the cap is read, to know whether more matched.
  const matches: IssueRef[] = [];
  let cursor: string | undefined;
  do {
    const limit = Math.min(PAGE, cap + 1 - matches.length);
    const page = await metadata.listIssues({ ...filter, limit, ...(cursor ? { cursor } : {}) });
    for (const { id, projectId, shortId } of page.items) matches.push({ id, projectId, shortId });
    cursor = page.nextCursor;
  } while (cursor && matches.length <= cap);
  const more = matches.length > cap;
  return { issues: more ? matches.slice(0, cap) : matches, more };
}

/** The action on the issues of one project, PAGE at a time; names the ones that changed, in order. */
export async function triageAll(
  ports: TriagePorts,
  projectId: number,
  issues: IssueRef[],
  request: TriageRequest,
  actor: TriageActor,
  now: Date,
): Promise<TriageResult> {
  let changed = 0;
  const changedIds: number[] = [];
  for (let i = 0; i < issues.length; i += PAGE) {
    const part = await triageIssues(ports, projectId, issues.slice(i, i + PAGE), request, actor, now);
    changed += part.changed;
    changedIds.push(...part.changedIds);
  }
  return { matched: issues.length, changed, changedIds };
}
