// How tools show issues: the facts Errata computed (short id, status, counts, times) in the
// trusted part, and the text captured from events (title, culprit, environments, releases)
// apart, for the untrusted-data envelope. Shared by every tool that lists issues.
import { z } from 'zod';
import { LEVELS, type Level } from '../../core/event/level.ts';
import { issueFilter as issueSearchFilter } from '../../core/search/issue-search.ts';
import { MAX_ISSUE_ENVIRONMENTS } from '../../core/ports/issue-store.ts';
import { ISSUE_STATUSES, type Issue, type IssueStatus } from '../../core/ports/metadata-store.ts';
import { isoSeconds } from './iso-time.ts';

// Lean on purpose: a list answer repeats these for every issue, so what is absent says something
// (no snoozeUntil: not snoozed; no isRegression: not a regression; no project or status: the
// answer's one project or status), and nothing is null or empty.
export const issueFactsSchema = z.object({
  shortId: z.string(),
  project: z.string().optional().describe('present when the answer spans several projects'),
  level: z.enum(LEVELS),
  status: z.enum(ISSUE_STATUSES).optional().describe("absent when the answer's status says it for every issue"),
  count: z.number().int(),
  userCount: z.number().int(),
  seen: z.array(z.string()).describe('first and last seen, ISO 8601 to the second; one time when they are the same'),
  snoozeUntil: z.string().optional().describe('present while snoozed'),
  isRegression: z.literal(true).optional().describe('present when it came back after a resolve and has not been triaged since'),
  moreEnvironments: z
    .number()
    .int()
    .optional()
    .describe(
      `present when it was seen in more environments than untrustedData lists: how many more, of the first ${MAX_ISSUE_ENVIRONMENTS} ` +
        '(no more are recorded); get_issue_context counts the events in the others instead',
    ),
});

/** Environments shown per issue: a list answer repeats them for every issue, and SDKs may send many. */
const LISTED_ENVIRONMENTS = 10;

export const issueTextSchema = z.object({
  shortId: z.string(),
  title: z.string(),
  culprit: z.string().optional().describe('absent when the SDK gave none'),
  environments: z
    .array(z.string())
    .describe(`the environments it was seen in, the first ${LISTED_ENVIRONMENTS} (the facts' moreEnvironments counts the rest)`),
  releases: z
    .array(z.string())
    .optional()
    .describe('the first and the last release it was seen with (one when the same); absent when events named none'),
});

/**
 * withProject: the answer spans several projects; withoutStatus: the answer names the one status
 * of all its issues; withoutListedEnvironments: the answer lists environments its own way, not
 * with issueText (get_issue_context's tag summary, which counts the rest itself).
 */
export function issueFacts(
  issue: Issue,
  options: { withProject?: boolean; withoutStatus?: boolean; withoutListedEnvironments?: boolean } = {},
): z.infer<typeof issueFactsSchema> {
  return {
    shortId: issue.shortId,
    ...(options.withProject && { project: issue.projectSlug }),
    level: issue.level,
    ...(!options.withoutStatus && { status: issue.status }),
    count: issue.count,
    userCount: issue.userCount,
    seen: seenTimes(issue),
    ...(issue.snoozeUntil && { snoozeUntil: isoSeconds(issue.snoozeUntil) }),
    ...(issue.status === 'unresolved' && issue.resolution !== null && { isRegression: true as const }),
    ...(!options.withoutListedEnvironments &&
      issue.environments.length > LISTED_ENVIRONMENTS && { moreEnvironments: issue.environments.length - LISTED_ENVIRONMENTS }),
  };
}

/** Like `releases`: an issue seen once (and many are, in a list) is one time, not the same twice. */
function seenTimes(issue: Issue): string[] {
  const [first, last] = [isoSeconds(issue.firstSeen), isoSeconds(issue.lastSeen)];
  return first === last ? [first] : [first, last];
}

export function issueText(issue: Issue): z.infer<typeof issueTextSchema> {
  const releases = [issue.firstRelease, issue.lastRelease].filter((r): r is string => r !== null);
  return {
    shortId: issue.shortId,
    title: issue.title,
    ...(issue.culprit && { culprit: issue.culprit }),
    environments: issue.environments.slice(0, LISTED_ENVIRONMENTS),
    ...(releases.length > 0 && { releases: [...new Set(releases)] }),
  };
}

/** How the search syntax reads, for the query input of every tool that takes one. */
const SEARCH_SYNTAX =
  'Search: free text (its words found together, in the order typed, in the title or culprit; any case) and key:value terms, all of which must match: ' +
  'is:unresolved|resolved|ignored|snoozed|all, level:debug|info|warning|error|fatal, environment:<name>, ' +
  'firstRelease:<version>; !key:value excludes; quote values or text with spaces or colons ' +
  '(environment:"eu west", "TypeError: x"). E.g. is:unresolved level:error !environment:staging checkout';

/** The filter list_issues and bulk_update_issues share. */
export const issueFilterInput = {
  status: z
    .enum([...ISSUE_STATUSES, 'all'])
    .optional()
    .describe('default unresolved; the same as is:<status> in query (give it in one place or make them agree)'),
  level: z.enum(LEVELS).optional().describe('the same as level:<level> in query'),
  query: z.string().max(200).optional().describe(SEARCH_SYNTAX),
};

/** The IssueQuery filter for a tool's status, level and query inputs (core/search/issue-search.ts). */
export function issueFilter(input: {
  status?: IssueStatus | 'all' | undefined;
  level?: Level | undefined;
  query?: string | undefined;
}) {
  return issueSearchFilter(input.query, { status: input.status, level: input.level });
}

export const projectSlugInput = z
  .string()
  .min(1)
  .max(100)
  .optional()
  .describe('Project slug, as list_projects shows it; a project-scoped token may leave it out');
export const shortIdInput = z.string().min(3).max(120).describe('Issue short id, e.g. WEB-APP-12');
