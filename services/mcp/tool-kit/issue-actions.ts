// What update_issue and bulk_update_issues share: the action inputs, and the checks made
// before any issue is looked up (role for the action, snoozeMinutes, the delete confirmation),
// so a refusal never tells whether an issue exists.
import { z } from 'zod';
import { roleAtLeast } from '../../core/auth/roles.ts';
import { ForbiddenError, UserInputError } from '../../core/errors.ts';
import { checkSnoozeMinutes } from '../../core/issues/action-checks.ts';
import { ISSUE_ACTIONS, MAX_SNOOZE_MINUTES, minimumRoleFor } from '../../core/issues/lifecycle.ts';
import { mintTokenCommand } from '../tool-errors.ts';
import type { ToolContext } from './tool.ts';

export const actionInput = z
  .enum(ISSUE_ACTIONS)
  .describe(
    'resolve, unresolve, ignore (events still counted, no alerts), snooze (needs snoozeMinutes), delete (admin, needs confirmation)',
  );
export const snoozeMinutesInput = z.number().int().min(1).max(MAX_SNOOZE_MINUTES).optional().describe('for snooze');

/** The role an action needs and delete's confirmation flag, before anything is looked up. */
export function checkActionAllowed(
  context: ToolContext,
  { action, snoozeMinutes }: { action: (typeof ISSUE_ACTIONS)[number]; snoozeMinutes?: number | undefined },
  confirmed: boolean | undefined,
  flag: 'confirmDelete' | 'confirmBulk',
): void {
  checkSnoozeMinutes(action, snoozeMinutes);
  // The dashboard's forms may post the snooze field with any button; an agent's call names it on purpose.
  if (snoozeMinutes !== undefined && action !== 'snooze') {
    throw new UserInputError(`snoozeMinutes goes with action snooze only, not ${action}; nothing was changed`);
  }
  const needed = minimumRoleFor(action);
  if (!roleAtLeast(context.token.role, needed)) {
    const mint = mintTokenCommand(needed, context.organization.slug, context.token.projectSlug);
    throw new ForbiddenError(
      `${action} needs a token with role ${needed} or higher; this token has role ${context.token.role}. An administrator mints one with: ${mint}`,
    );
  }
  if (action === 'delete' && confirmed !== true) {
    throw new UserInputError(
      `delete removes issues and their events for good: pass ${flag}: true to confirm; nothing was deleted`,
    );
  }
}
