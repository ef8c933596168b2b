// The sort and environment inputs of the tools that list or act on issues (list_issues, whats_new,
// bulk_update_issues): the orders the issue store pages in (core/ports/issue-store.ts), and an
// environment filter that is the same as the search's environment: term, so the two must agree
// when both are given.
import { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import { ISSUE_SORTS } from '../../core/ports/issue-store.ts';

const SORT_MEANING = 'lastSeen (most recently seen), firstSeen (newest), events (most events), users (most users affected)';

const issueSorts = z.enum(ISSUE_SORTS);

export const issueSortInput = issueSorts
  .default('lastSeen')
  .describe(`${SORT_MEANING}; default lastSeen. A cursor continues only the sort it came from`);

/**
 * The same orders for bulk_update_issues, which acts on every match at once (so no cursor) and
 * must tell a sort given from none, because shortIds takes none: no default filled in.
 */
export const actionOrderInput = issueSorts
  .optional()
  .describe(`the order issues are acted on and echoed in: ${SORT_MEANING}; default lastSeen`);

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
