// The sort and environment inputs of the tools that list issues (list_issues, whats_new): the
// orders the issue store pages in (core/ports/issue-store.ts), and an environment filter that is
// the same as the search's environment: term, so the two must agree when both are given.
import { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import { ISSUE_SORTS } from '../../core/ports/issue-store.ts';

const SORT_MEANING = 'lastSeen (most recently seen), firstSeen (newest), events (most events), users (most users affected)';

export const issueSortInput = z
  .enum(ISSUE_SORTS)
  .default('lastSeen')
  .describe(`${SORT_MEANING}; default lastSeen. A cursor continues only the sort it came from`);

export const attentionSortInput = z
  .enum(['priority', ...ISSUE_SORTS])
  .default('priority')
  .describe(`default priority: regressed, then new, then spiking, then burst, each by events in the window; or ${SORT_MEANING}`);

export const environmentInput = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('only issues seen in this environment, e.g. production (the same as environment:<name> in query)');

/** The environment to filter by: the input's, which must agree with the query's environment: term. */
export function agreedEnvironment(given: string | undefined, searched: string | undefined): string | undefined {
  if (given !== undefined && searched !== undefined && given !== searched) {
    throw new UserInputError(
      `environment ${JSON.stringify(given)} and the query's environment:${JSON.stringify(searched)} disagree: give the environment in one place`,
    );
  }
  return given ?? searched;
}
