// bulk_update_issues: one triage action on every issue of a project matching a filter (the
// same filter list_issues takes), or on the issues named by shortIds. delete needs admin and
// confirmBulk. It echoes the short ids it changed, and dryRun shows what would match first.
import { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import { matchingIssues, triageAll } from '../../core/issues/bulk-triage.ts';
import { ISSUE_ACTIONS } from '../../core/issues/lifecycle.ts';
import { ISSUE_SORTS } from '../../core/ports/issue-store.ts';
import type { Issue, Project } from '../../core/ports/metadata-store.ts';
import { issueFilter, issueFilterInput, projectSlugInput, shortIdInput } from '../tool-kit/issue-views.ts';
import { actionOrderInput, agreedEnvironment, environmentInput } from '../tool-kit/issue-list-options.ts';
import { issueByShortId, projectBySlug } from '../tool-kit/scope.ts';
import { defineTool, type ToolContext } from '../tool-kit/tool.ts';
import { actionInput, checkActionAllowed, snoozeMinutesInput } from '../tool-kit/issue-actions.ts';

/** Short ids echoed back: enough to check a bulk action, bounded however many it touched. */
const ECHOED = 50;
const MAX_SHORT_IDS = 100;

export const bulkUpdateIssues = defineTool({
  name: 'bulk_update_issues',
  title: 'Bulk update issues',
  description:
    'Apply one action (resolve, unresolve, ignore, snooze, delete) to every issue of a project matching the filter ' +
    '(status, default unresolved; level; environment; query in the search syntax list_issues takes, e.g. level:error ' +
    '!environment:staging TypeError), or to the issues named in shortIds (instead of a filter). ' +
    `Returns how many matched and changed, and the short ids changed in sort order (first ${ECHOED}). ` +
    'dryRun: true changes nothing and returns the short ids that match. ' +
    'delete (admin) needs confirmBulk: true. project may be left out with a project-scoped token.',
  minimumRole: 'triage',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  inputSchema: {
    project: projectSlugInput,
    ...issueFilterInput,
    environment: environmentInput,
    sort: actionOrderInput,
    shortIds: z
      .array(shortIdInput)
      .min(1)
      .max(MAX_SHORT_IDS)
      .optional()
      .describe('the issues to act on, all of one project, instead of a filter (no status, level, environment, query or sort)'),
    action: actionInput,
    snoozeMinutes: snoozeMinutesInput,
    confirmBulk: z.boolean().optional().describe('must be true for delete'),
    dryRun: z.boolean().optional().describe('true: change nothing; say what matches'),
  },
  outputSchema: {
    project: z.string(),
    action: z.enum(ISSUE_ACTIONS),
    dryRun: z.boolean(),
    matched: z.number().int(),
    changed: z.number().int().describe('0 on a dry run'),
    shortIds: z.array(z.string()).describe(`what changed (on a dry run: what matched), in sort order, the first ${ECHOED}`),
    moreShortIds: z.number().int().describe('how many more changed (or matched) than shortIds lists'),
  },
  async run(input, context) {
    checkActionAllowed(context, input, input.confirmBulk || input.dryRun, 'confirmBulk');
    const { project, issues } = input.shortIds
      ? await namedIssues(context, input.shortIds, input)
      : await filteredIssues(context, input);
    const dryRun = input.dryRun === true;
    let changed: Issue[] = issues;
    if (!dryRun) {
      const request = { action: input.action, ...(input.snoozeMinutes ? { snoozeMinutes: input.snoozeMinutes } : {}) };
      const actor = { kind: 'agent', name: context.token.name } as const;
      const { changedIds } = await triageAll(context, project.id, issues, request, actor, context.now());
      const ids = new Set(changedIds);
      changed = issues.filter((issue) => ids.has(issue.id));
    }
    const shortIds = changed.slice(0, ECHOED).map((issue) => issue.shortId);
    const more = changed.length - shortIds.length;
    const listed = shortIds.length > 0 ? `: ${shortIds.join(', ')}${more > 0 ? ` and ${more} more` : ''}` : '';
    const matched = `${issues.length} issue${issues.length === 1 ? '' : 's'} matched in ${project.slug}`;
    return {
      summary: dryRun
        ? `${input.action} (dry run, nothing changed): ${matched}${listed}.`
        : `${input.action}: ${matched}, ${changed.length} changed${listed}.`,
      result: {
        project: project.slug,
        action: input.action,
        dryRun,
        matched: issues.length,
        changed: dryRun ? 0 : changed.length,
        shortIds,
        moreShortIds: more,
      },
    };
  },
});

type FilterInput = Parameters<typeof issueFilter>[0] & {
  project?: string | undefined;
  environment?: string | undefined;
  sort?: (typeof ISSUE_SORTS)[number] | undefined;
};

async function filteredIssues(context: ToolContext, input: FilterInput): Promise<{ project: Project; issues: Issue[] }> {
  const filter = issueFilter(input);
  const environment = agreedEnvironment(input.environment, filter.environment);
  const project = await projectBySlug(context, input.project);
  const issues = await matchingIssues(context.metadata, {
    ...filter,
    projectId: project.id,
    ...(environment !== undefined ? { environment } : {}),
    ...(input.sort ? { sort: input.sort } : {}),
  });
  return { project, issues };
}

/** The issues shortIds names, in its order, once each; all must be of one project the token sees. */
async function namedIssues(
  context: ToolContext,
  shortIds: string[],
  input: FilterInput,
): Promise<{ project: Project; issues: Issue[] }> {
  const given = (['status', 'level', 'query', 'environment', 'sort'] as const).filter((key) => input[key] !== undefined);
  if (given.length > 0) {
    throw new UserInputError(
      `shortIds names the issues itself: leave out ${given.join(', ')}, or drop shortIds to act on a filter`,
    );
  }
  const named = input.project === undefined ? undefined : await projectBySlug(context, input.project);
  const issues = new Map<number, Issue>();
  let project = named;
  for (const shortId of shortIds) {
    const found = await issueByShortId(context, shortId);
    project ??= found.project;
    if (found.project.id !== project.id) {
      throw new UserInputError(
        `${found.issue.shortId} is in project ${found.project.slug}, not ${project.slug}: one call acts on one project's issues`,
      );
    }
    issues.set(found.issue.id, found.issue);
  }
  return { project: project!, issues: [...issues.values()] };
}
