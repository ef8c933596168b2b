// The checks a triage request must pass before any issue is looked up, whoever sends it (the
// MCP tools, the dashboard's forms): a snooze needs its minutes, commit and release go with a
// resolve only. Roles are checked by each caller with its own actor.
import { UserInputError } from '../errors.ts';
import { MAX_SNOOZE_MINUTES, type IssueAction } from './lifecycle.ts';

export function checkSnoozeMinutes(action: IssueAction, snoozeMinutes: number | undefined): void {
  if (action === 'snooze' && snoozeMinutes === undefined) {
    throw new UserInputError(`snooze needs snoozeMinutes (1 to ${MAX_SNOOZE_MINUTES}); nothing was changed`);
  }
}

export function checkResolveFields(action: IssueAction, commit: string | undefined, release: string | undefined): void {
  if ((commit || release) && action !== 'resolve') {
    throw new UserInputError('commit and release go with action resolve only');
  }
}
