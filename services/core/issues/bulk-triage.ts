// One triage action on every issue of a project matching a filter, however many: what
// bulk_update_issues does for an agent and the Issues page's "all N matching" does for a person.
// Pure over the ports; the callers have checked the role and the confirmation.
import type { IssueQuery } from '../ports/issue-store.ts';
import type { Issue } from '../ports/metadata-store.ts';
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
  // Every match first, then the action: the action changes statuses, which would shift pages.
  const matches: Issue[] = [];
  let cursor: string | undefined;
  do {
    const page = await ports.metadata.listIssues({ ...filter, limit: PAGE, ...(cursor ? { cursor } : {}) });
    matches.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  let changed = 0;
  for (let i = 0; i < matches.length; i += PAGE) {
    const part = matches.slice(i, i + PAGE);
    changed += (await triageIssues(ports, filter.projectId, part, request, actor, now)).changed;
  }
  return { matched: matches.length, changed };
}
