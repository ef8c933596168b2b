// bulk_update_issues: one triage action on every issue of a project matching a filter (the
// same filter list_issues takes), not an explicit list. delete needs admin and confirmBulk.
import { z } from 'zod';
import { ISSUE_ACTIONS } from '../../core/issues/lifecycle.ts';
import { triageMatching } from '../../core/issues/bulk-triage.ts';
import { issueFilter, issueFilterInput, projectSlugInput } from '../tool-kit/issue-views.ts';
import { projectBySlug } from '../tool-kit/scope.ts';
import { defineTool } from '../tool-kit/tool.ts';
import { actionInput, checkActionAllowed, snoozeMinutesInput } from '../tool-kit/issue-actions.ts';

export const bulkUpdateIssues = defineTool({
  name: 'bulk_update_issues',
  title: 'Bulk update issues',
  description:
    'Apply one action (resolve, unresolve, ignore, snooze, delete) to every issue of a project matching the filter ' +
    '(status, default unresolved; level; query in the search syntax list_issues takes, e.g. level:error !environment:staging TypeError). ' +
    'Returns how many matched and how many changed. ' +
    'delete (admin) needs confirmBulk: true. Check the filter with list_issues first.',
  minimumRole: 'triage',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  inputSchema: {
    project: projectSlugInput,
    ...issueFilterInput,
    action: actionInput,
    snoozeMinutes: snoozeMinutesInput,
    confirmBulk: z.boolean().optional().describe('must be true for delete'),
  },
  outputSchema: {
    project: z.string(),
    action: z.enum(ISSUE_ACTIONS),
    matched: z.number().int(),
    changed: z.number().int(),
  },
  async run(input, context) {
    checkActionAllowed(context, input, input.confirmBulk, 'confirmBulk');
    const filter = issueFilter(input);
    const project = await projectBySlug(context, input.project);
    const request = { action: input.action, ...(input.snoozeMinutes ? { snoozeMinutes: input.snoozeMinutes } : {}) };
    const { matched, changed } = await triageMatching(
      context,
      { projectId: project.id, ...filter },
      request,
      { kind: 'agent', name: context.token.name },
      context.now(),
    );
    return {
      summary: `${input.action}: ${matched} issue${matched === 1 ? '' : 's'} matched in ${project.slug}, ${changed} changed.`,
      result: { project: project.slug, action: input.action, matched, changed },
    };
  },
});
