// One triage action on the issues of a project matching a filter: what bulk_update_issues does
// for an agent and the Issues page's "all N matching" does for a person. One call takes at most
// MAX_BULK_ISSUES, the first in the filter's order, and says whether more matched (Sentry's bulk
// actions likewise take the first 1,000): a broad filter on a flooded project must not hold
// every match in memory. A resolve, ignore or delete run again reaches the rest. Pure over the
// ports; the callers have checked the role and the confirmation.
import type { IssueListQuery, IssueQuery, IssueSort } from '../ports/issue-store.ts';
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
  filter: IssueQuery & Pick<IssueListQuery, 'sort'>,
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
  // Read by first seen, which an event never moves later: by last seen, events or users an
  // issue that got an event while the pages were read moved above them unread, and was left out
  // of an action that said it took every match.
  const all = await readMatches(metadata, { ...filter, sort: 'firstSeen' }, cap);
  if (all.more) {
    // Past the cap the action takes the first `cap` in the filter's order; it says more
    // matched, and running it again reaches the rest, and any this reading left out.
    const first = await readMatches(metadata, filter, cap);
    return { issues: first.issues.map(ref), more: true };
  }
  return { issues: all.issues.sort(inOrder(filter.sort ?? 'lastSeen')).map(ref), more: false };
}

/** Up to `cap` matches in one order, once each, and whether more matched. */
async function readMatches(
  metadata: MetadataStore,
  filter: IssueQuery & Pick<IssueListQuery, 'sort'>,
  cap: number,
): Promise<{ issues: Issue[]; more: boolean }> {
  // Every match first, then the action: the action changes statuses, which would shift pages.
  // One past the cap is read, to know whether more matched. An issue whose first seen moved
  // earlier meanwhile (an older event arrived) is met twice, and kept once.
  const matches = new Map<number, Issue>();
  let cursor: string | undefined;
  do {
    const limit = Math.min(PAGE, cap + 1 - matches.size);
    const page = await metadata.listIssues({ ...filter, limit, ...(cursor ? { cursor } : {}) });
    for (const issue of page.items) matches.set(issue.id, issue);
    cursor = page.nextCursor;
  } while (cursor && matches.size <= cap);
  const issues = [...matches.values()];
  return { issues: issues.slice(0, cap), more: issues.length > cap };
}

const ref = ({ id, projectId, shortId }: Issue): IssueRef => ({ id, projectId, shortId });

/** The list's order: newest or largest first, ties by id, newest first (pg-issue-store.ts). */
function inOrder(sort: IssueSort): (a: Issue, b: Issue) => number {
  const key: (issue: Issue) => number = {
    lastSeen: (issue: Issue) => issue.lastSeen.getTime(),
    firstSeen: (issue: Issue) => issue.firstSeen.getTime(),
    events: (issue: Issue) => issue.count,
    users: (issue: Issue) => issue.userCount,
  }[sort];
  return (a, b) => key(b) - key(a) || b.id - a.id;
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
