// How tools show issues: the facts Errata computed (short id, status, counts, times) in the
// trusted part, and the text captured from events (title, culprit, environments, releases)
// apart, for the untrusted-data envelope. Shared by every tool that lists issues.
import { z } from 'zod';
import { LEVELS, type Level } from '../../core/event/level.ts';
import { issueFilter as issueSearchFilter } from '../../core/search/issue-search.ts';
import { ISSUE_STATUSES, type Issue, type IssueStatus } from '../../core/ports/metadata-store.ts';

export const issueFactsSchema = z.object({
  shortId: z.string(),
  project: z.string(),
  level: z.enum(LEVELS),
  status: z.enum(ISSUE_STATUSES),
  count: z.number().int(),
  userCount: z.number().int(),
  firstSeen: z.string().describe('ISO 8601'),
  lastSeen: z.string().describe('ISO 8601'),
  snoozeUntil: z.string().nullable(),
  isRegression: z.boolean().describe('it came back after a resolve and has not been triaged since'),
});

export const issueTextSchema = z.object({
  shortId: z.string(),
  title: z.string(),
  culprit: z.string(),
  environments: z.array(z.string()),
  firstRelease: z.string().nullable(),
  lastRelease: z.string().nullable(),
});

export function issueFacts(issue: Issue): z.infer<typeof issueFactsSchema> {
  return {
    shortId: issue.shortId,
    project: issue.projectSlug,
    level: issue.level,
    status: issue.status,
    count: issue.count,
    userCount: issue.userCount,
    firstSeen: issue.firstSeen.toISOString(),
    lastSeen: issue.lastSeen.toISOString(),
    snoozeUntil: issue.snoozeUntil?.toISOString() ?? null,
    isRegression: issue.status === 'unresolved' && issue.resolution !== null,
  };
}

export function issueText(issue: Issue): z.infer<typeof issueTextSchema> {
  return {
    shortId: issue.shortId,
    title: issue.title,
    culprit: issue.culprit,
    environments: issue.environments,
    firstRelease: issue.firstRelease,
    lastRelease: issue.lastRelease,
  };
}

/** How the search syntax reads, for the query input of every tool that takes one. */
const SEARCH_SYNTAX =
  'Search: free text (found in the title or culprit) and key:value terms, all of which must match: ' +
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
