// One triage action on every issue of a project matching a filter, however many: what
// bulk_update_issues does for an agent and the Issues page's "all N matching" does for a person.
// Pure over the ports; the callers have checked the role and the confirmation.
import type { IssueListQuery, IssueQuery } from '../ports/issue-store.ts';
import type { Issue, MetadataStore } from '../ports/metadata-store.ts';
import type { TriageActor } from './lifecycle.ts';
import { triageIssues, type TriagePorts, type TriageRequest, type TriageResult } from './triage.ts';

/** Issues per store call: bounded work per statement, however many match. */
const PAGE = 200;

export async function triageMatching(
  ports: TriagePorts,
  filter: IssueQuery,
  request: TriageRequest,
  actor: TriageActor,
  now: Date,
): Promise<TriageResult> {
  return triageAll(ports, filter.projectId, await matchingIssues(ports.metadata, filter), request, actor, now);
}

/** Every issue matching the filter, in its sort (default lastSeen), read a page at a time. */
export async function matchingIssues(
  metadata: MetadataStore,
  filter: IssueQuery & Pick<IssueListQuery, 'sort'>,
): Promise<Issue[]> {
  // Every match first, then the action: the action changes statuses, which would shift pages.
  const matches: Issue[] = [];
  let cursor: string | undefined;
  do {
    const page = await metadata.listIssues({ ...filter, limit: PAGE, ...(cursor ? { cursor } : {}) });
    matches.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return matches;
}

/** The action on the issues of one project, PAGE at a time; names the ones that changed, in order. */
export async function triageAll(
  ports: TriagePorts,
  projectId: number,
  issues: Issue[],
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
