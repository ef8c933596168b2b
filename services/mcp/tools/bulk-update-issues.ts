// bulk_update_issues: one triage action on every issue of a project matching a filter (the
// same filter list_issues takes; the first 10,000 in its order), or on the issues named by
// shortIds. delete needs admin and confirmBulk. It echoes the short ids it changed, and dryRun
// shows what would match first.
import { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import { matchingIssues, MAX_BULK_ISSUES, triageAll, type IssueRef, type Matches } from '../../core/issues/bulk-triage.ts';
import { ISSUE_ACTIONS } from '../../core/issues/lifecycle.ts';
import { ISSUE_SORTS } from '../../core/ports/issue-store.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
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
    `One call acts on at most the first ${MAX_BULK_ISSUES.toLocaleString('en-US')} matches in sort order; moreMatching says more matched. ` +
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
    changed: z.number().int().describe('how many changed status; 0 on a dry run'),
    alreadyInStatus: z
      .number()
      .int()
      .optional()
      .describe(
        'matched issues whose status already was what the action sets; a resolve, snooze or unresolve still applied to them ' +
          '(summary says how); absent on a dry run, which does not tell',
      ),
    shortIds: z.array(z.string()).describe(`what changed (on a dry run: what matched), in sort order, the first ${ECHOED}`),
    moreShortIds: z.number().int().describe('how many more changed (or matched) than shortIds lists'),
    moreMatching: z
      .literal(true)
      .optional()
      .describe(
        `present when more than ${MAX_BULK_ISSUES} matched: only the first ${MAX_BULK_ISSUES} in sort order were taken ` +
          '(once the action makes them stop matching, e.g. resolving unresolved issues, a second call takes the next ones)',
      ),
  },
  async run(input, context) {
    checkActionAllowed(context, input, input.confirmBulk || input.dryRun, 'confirmBulk');
    const { project, issues, more } = input.shortIds
      ? await namedIssues(context, input.shortIds, input)
      : await filteredIssues(context, input);
    const dryRun = input.dryRun === true;
    let changed: IssueRef[] = issues;
    if (!dryRun) {
      const request = { action: input.action, ...(input.snoozeMinutes ? { snoozeMinutes: input.snoozeMinutes } : {}) };
      const actor = { kind: 'agent', name: context.token.name } as const;
      const { changedIds } = await triageAll(context, project.id, issues, request, actor, context.now());
      const ids = new Set(changedIds);
      changed = issues.filter((issue) => ids.has(issue.id));
    }
    const shortIds = changed.slice(0, ECHOED).map((issue) => issue.shortId);
    const moreListed = changed.length - shortIds.length;
    const listed = shortIds.length > 0 ? `: ${shortIds.join(', ')}${moreListed > 0 ? ` and ${moreListed} more` : ''}` : '';
    const cap = MAX_BULK_ISSUES.toLocaleString('en-US');
    const matched = more
      ? `more than ${cap} issues matched in ${project.slug}, the first ${cap} ${dryRun ? 'listed (a call takes those)' : 'taken'}`
      : `${issues.length} issue${issues.length === 1 ? '' : 's'} matched in ${project.slug}`;
    const rest = more && !dryRun ? ' For the rest, call again once these no longer match the filter, or narrow it.' : '';
    const already = dryRun ? 0 : issues.length - changed.length;
    return {
      summary: dryRun
        ? `${input.action} (dry run, nothing changed): ${matched}${listed}.${rest}`
        : `${input.action}: ${matched}, ${changed.length} changed status${listed}${already > 0 ? alreadyThere(input.action, already) : ''}.${rest}`,
      result: {
        project: project.slug,
        action: input.action,
        dryRun,
        matched: issues.length,
        changed: dryRun ? 0 : changed.length,
        ...(dryRun ? {} : { alreadyInStatus: already }),
        shortIds,
        moreShortIds: moreListed,
        ...(more ? { moreMatching: true as const } : {}),
      },
    };
  },
});

/**
 * What the action did to issues already in the status it sets. Before, they went unmentioned
 * ("0 changed"), though a resolve had replaced their markers and an unresolve cleared them.
 */
function alreadyThere(action: (typeof ISSUE_ACTIONS)[number], n: number): string {
  const other = `; the other ${n} ${n === 1 ? 'was' : 'were'}`;
  if (action === 'resolve') return `${other} resolved already: their resolution marker is now this one`;
  if (action === 'snooze') return `${other} snoozed already: snoozed until the new end`;
  if (action === 'unresolve') return `${other} unresolved already: any resolution marker they kept (a regression's) is cleared`;
  return `${other} ${action === 'ignore' ? 'ignored' : 'deleted'} already (unchanged)`;
}

type FilterInput = Parameters<typeof issueFilter>[0] & {
  project?: string | undefined;
  environment?: string | undefined;
  sort?: (typeof ISSUE_SORTS)[number] | undefined;
};

async function filteredIssues(context: ToolContext, input: FilterInput): Promise<Matches & { project: Project }> {
  const filter = issueFilter(input);
  const environment = agreedEnvironment(input.environment, filter.environment);
  const project = await projectBySlug(context, input.project);
  const matches = await matchingIssues(context.metadata, {
    ...filter,
    projectId: project.id,
    ...(environment !== undefined ? { environment } : {}),
    ...(input.sort ? { sort: input.sort } : {}),
  });
  return { project, ...matches };
}

/** The issues shortIds names, in its order, once each; all must be of one project the token sees. */
async function namedIssues(
  context: ToolContext,
  shortIds: string[],
  input: FilterInput,
): Promise<Matches & { project: Project }> {
  const given = (['status', 'level', 'query', 'environment', 'sort'] as const).filter((key) => input[key] !== undefined);
  if (given.length > 0) {
    throw new UserInputError(
      `shortIds names the issues itself: leave out ${given.join(', ')}, or drop shortIds to act on a filter`,
    );
  }
  const named = input.project === undefined ? undefined : await projectBySlug(context, input.project);
  const issues = new Map<number, IssueRef>();
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
  return { project: project!, issues: [...issues.values()], more: false };
}
