// Similar issues, for get_issue_context: the same exception type raised at the same top in-app
// frame (file and function), or a near-identical title (equal once numbers, hex ids and
// quoted values are masked, as grouping does with messages).
import type { IssueOutline, IssueStore } from '../ports/issue-store.ts';

type SimilarReason = 'same_exception_and_frame' | 'similar_title';

interface SimilarIssue {
  issue: IssueOutline;
  reason: SimilarReason;
}

/** How many of the project's most recently seen issues are compared. */
const CANDIDATES = 500;

/** The issues like `issue` among the project's recently seen ones (get_issue_context, the issue page). */
export async function findSimilarIssues(
  issues: Pick<IssueStore, 'listIssueOutlines'>,
  issue: IssueOutline & { projectId: number },
): Promise<SimilarIssue[]> {
  return similarIssues(issue, await issues.listIssueOutlines(issue.projectId, CANDIDATES));
}

export function similarIssues(issue: IssueOutline, candidates: IssueOutline[], limit = 5): SimilarIssue[] {
  const title = titleShape(issue.title);
  const out: SimilarIssue[] = [];
  for (const candidate of candidates) {
    if (candidate.id === issue.id) continue;
    if (sameExceptionAndFrame(issue, candidate)) out.push({ issue: candidate, reason: 'same_exception_and_frame' });
    else if (title.length > 0 && titleShape(candidate.title) === title) out.push({ issue: candidate, reason: 'similar_title' });
    if (out.length >= limit) break;
  }
  return out;
}

function sameExceptionAndFrame(a: IssueOutline, b: IssueOutline): boolean {
  const x = a.metadata;
  const y = b.metadata;
  if (!x.type || x.type !== y.type) return false;
  if (!x.function && !x.filename) return false;
  return x.function === y.function && x.filename === y.filename;
}

export function titleShape(title: string): string {
  return title
    .toLowerCase()
    .replace(/'[^']*'|"[^"]*"/g, '<q>')
    .replace(/\b[0-9a-f]{8,}\b/g, '<hex>')
    .replace(/\d+(\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}
