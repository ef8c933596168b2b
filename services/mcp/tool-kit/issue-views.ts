// How tools show issues: the facts Errata computed (short id, status, counts, times) in the
// trusted part, and the text captured from events (title, culprit, environments, releases)
// apart, for the untrusted-data envelope. Shared by every tool that lists issues.
import { z } from 'zod';
import { LEVELS } from '../../core/event/level.ts';
import { ISSUE_STATUSES, type Issue, type IssueQuery } from '../../core/ports/metadata-store.ts';

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

/** The filter list_issues and bulk_update_issues share. */
export const issueFilterInput = {
  status: z
    .enum([...ISSUE_STATUSES, 'all'])
    .default('unresolved')
    .describe('default unresolved'),
  level: z.enum(LEVELS).optional(),
  query: z.string().max(200).optional().describe('text to find in the title or culprit'),
};

export function issueFilter(input: {
  status: IssueQuery['status'];
  level?: IssueQuery['level'] | undefined;
  query?: string | undefined;
}): Pick<IssueQuery, 'status' | 'level' | 'text'> {
  return { status: input.status, ...(input.level ? { level: input.level } : {}), ...(input.query ? { text: input.query } : {}) };
}

export const projectSlugInput = z.string().min(1).max(100).describe('Project slug, as list_projects shows it');
export const shortIdInput = z.string().min(3).max(120).describe('Issue short id, e.g. WEB-APP-12');
