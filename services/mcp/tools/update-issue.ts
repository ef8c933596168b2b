// update_issue: one triage action on one issue. delete needs admin and confirmDelete: true;
// both are checked before the issue is looked up, so a refusal reveals nothing about it. A
// resolve naming a release the project never saw is applied, with a warning: until that release
// is seen no event of another release regresses the issue (core/issues/marker-release.ts).
import { z } from 'zod';
import { checkResolveFields } from '../../core/issues/action-checks.ts';
import { ISSUE_ACTIONS } from '../../core/issues/lifecycle.ts';
import { markerRelease, unseenReleaseText } from '../../core/issues/marker-release.ts';
import { triageIssues } from '../../core/issues/triage.ts';
import { resolutionSchema, resolutionView, resolutionWritten, writtenSchema } from '../tool-kit/issue-activity-view.ts';
import { shortIdInput } from '../tool-kit/issue-views.ts';
import { issueByShortId } from '../tool-kit/scope.ts';
import { actionInput, checkActionAllowed, snoozeMinutesInput } from '../tool-kit/issue-actions.ts';
import { isoSeconds } from '../tool-kit/iso-time.ts';
import { defineTool } from '../tool-kit/tool.ts';
import { withoutEmpty } from '../tool-kit/without-empty.ts';

export const updateIssue = defineTool({
  name: 'update_issue',
  title: 'Update issue',
  description:
    'Resolve, unresolve, ignore, snooze or delete one issue. resolve stamps a resolution marker (optionally with the commit ' +
    'or release that fixes it and a note) that check_resolution compares later events with; the release must be the ' +
    'name the SDK sends (often package@version): for a release this project has never seen, warnings says so and ' +
    'untrustedData.recentReleases lists the newest seen. snooze returns the issue to ' +
    'unresolved after snoozeMinutes; delete (admin) removes the issue and its events and needs confirmDelete: true.',
  minimumRole: 'triage',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  inputSchema: {
    shortId: shortIdInput,
    action: actionInput,
    snoozeMinutes: snoozeMinutesInput,
    commit: z.string().min(1).max(200).optional().describe('resolve: the commit that fixes it'),
    release: z.string().min(1).max(200).optional().describe('resolve: the release that ships the fix'),
    note: z.string().max(2000).optional(),
    confirmDelete: z.boolean().optional().describe('must be true for delete'),
  },
  outputSchema: {
    shortId: z.string(),
    action: z.enum(ISSUE_ACTIONS),
    changed: z
      .boolean()
      .describe(
        'the status changed (or the issue was deleted); a resolve or snooze of an issue already so still replaces its resolution marker or snooze end',
      ),
    deleted: z.literal(true).optional().describe('present when the issue was deleted'),
    status: z.string().optional().describe('the status now; absent after delete'),
    resolution: resolutionSchema.optional().describe('present while the issue keeps a resolution marker'),
    snoozeUntil: z.string().optional().describe('present while snoozed'),
    warnings: z
      .array(z.string())
      .optional()
      .describe("what may not work as meant, in Errata's words (a release never seen); absent when nothing"),
    untrustedData: z
      .object({
        recentReleases: z
          .array(z.string())
          .describe('the names of the newest releases this project has seen, newest first, and any of the same version'),
      })
      .optional()
      .describe('only with a warning about the release'),
    agentWrittenData: z
      .object({ resolution: writtenSchema.describe("the marker's commit, release and note") })
      .optional()
      .describe('present when the resolution marker carries text a person or token wrote'),
  },
  async run(input, context) {
    checkActionAllowed(context, input, input.confirmDelete, 'confirmDelete');
    checkResolveFields(input.action, input.commit, input.release);
    const { project, issue } = await issueByShortId(context, input.shortId);
    const outcome = await triageIssues(
      context,
      project.id,
      [issue],
      input,
      { kind: 'agent', name: context.token.name },
      context.now(),
    );
    if (input.action === 'delete') {
      return {
        summary: `${issue.shortId} deleted with its events; a new event with its fingerprint starts a new issue.`,
        result: {
          shortId: issue.shortId,
          action: input.action,
          changed: outcome.changed > 0,
          deleted: true as const,
        },
      };
    }
    const after = (await context.metadata.getIssue(issue.id)) ?? issue;
    const release =
      input.action === 'resolve' && input.release ? await markerRelease(context.metadata, project.id, input.release) : undefined;
    const unseen = release && !release.seen ? release : undefined;
    const written = resolutionWritten(after.resolution);
    const warnings = unseen ? [`${unseenReleaseText(unseen)} Recent releases: untrustedData.recentReleases.`] : [];
    return {
      // The warning itself is in the facts, on the text's next line: named here, not repeated.
      summary:
        `${issue.shortId}: ${input.action} applied; status ${after.status}` +
        `${outcome.changed ? '' : sameStatus(input.action, issue.resolution !== null && after.resolution === null)}.` +
        (warnings.length > 0 ? ' Warning: read warnings before relying on it.' : ''),
      result: {
        shortId: issue.shortId,
        action: input.action,
        changed: outcome.changed > 0,
        status: after.status,
        ...withoutEmpty({
          resolution: resolutionView(after.resolution),
          snoozeUntil: after.snoozeUntil && isoSeconds(after.snoozeUntil),
          warnings,
        }),
        ...(unseen ? { untrustedData: { recentReleases: unseen.recent.map((r) => r.version) } } : {}),
        ...(written && { agentWrittenData: { resolution: written } }),
      },
    };
  },
});

/**
 * Said when the status was already what the action sets: a resolve and a snooze still stamp
 * anew, and an unresolve clears the marker a regression kept.
 */
function sameStatus(action: (typeof ISSUE_ACTIONS)[number], markerCleared: boolean): string {
  if (action === 'resolve') return ' (it was resolved already: the resolution marker is now this one)';
  if (action === 'snooze') return ' (it was snoozed already: snoozed until snoozeUntil now)';
  if (markerCleared) return ' (it was unresolved already, as a regression: the resolution marker it kept is cleared)';
  return ' (unchanged)';
}
