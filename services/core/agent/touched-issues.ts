// Which issues a tool call touched, for the Agent activity page's issue column and filter: the
// short ids its arguments name (update_issue's and get_issue_context's `shortId`,
// bulk_update_issues' `shortIds`) and, for an answered call, the ones its result names (the
// issue acted on, or what a bulk update changed). Listings name many issues and touch none.
// Canonical form (WEB-12), each once, at most MAX_TOUCHED.
import { formatShortId, parseShortId } from '../projects/short-id.ts';

const MAX_TOUCHED = 50;

export function touchedIssues(args: unknown, result: unknown): string[] {
  const found = new Set<string>();
  for (const source of [args, result]) {
    if (typeof source !== 'object' || source === null) continue;
    const { shortId, shortIds, dryRun } = source as { shortId?: unknown; shortIds?: unknown; dryRun?: unknown };
    add(found, shortId);
    // A dry run's result lists what matched, not what changed.
    if (Array.isArray(shortIds) && !(source === result && dryRun === true)) shortIds.forEach((id) => add(found, id));
  }
  return [...found].slice(0, MAX_TOUCHED);
}

function add(found: Set<string>, id: unknown): void {
  if (typeof id !== 'string') return;
  const parsed = parseShortId(id);
  if (parsed) found.add(formatShortId(parsed.projectSlug, parsed.number));
}
