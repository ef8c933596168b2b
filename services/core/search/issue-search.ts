// The search syntax for issues: what each key means, and the IssueQuery filter a query makes,
// combined with the separate status and level filters that list_issues, bulk_update_issues and
// the REST API also take. Keys follow Sentry's issue search where the stores can answer them.
import { LEVELS, type Level } from '../event/level.ts';
import { UserInputError } from '../errors.ts';
import { ISSUE_STATUSES, type IssueQuery, type IssueStatus } from '../ports/issue-store.ts';
import { parseSearch, SearchSyntaxError, type FilterTerm, type SearchSpec } from './search-syntax.ts';

const ISSUE_SEARCH: SearchSpec = {
  keys: {
    is: { values: [...ISSUE_STATUSES, 'all'], negatable: true },
    level: { values: LEVELS, negatable: true },
    environment: { negatable: true },
    firstRelease: { aliases: ['first-release'], negatable: true },
  },
  refused: {
    release:
      'Errata keeps the first and last release of an issue, not every release it was seen in; ' +
      'use firstRelease:<version> for issues first seen in a release',
  },
};

/** The part of an IssueQuery a search sets. */
type IssueFilter = Pick<IssueQuery, 'status' | 'level' | 'text' | 'environment' | 'firstRelease' | 'exclude'>;

/** The filters given beside the query (tool inputs, REST parameters); absent means not given. */
interface GivenIssueFilters {
  status?: IssueStatus | 'all' | undefined;
  level?: Level | undefined;
}

/**
 * The IssueQuery filter for `query` and the filters given with it. Everything must hold; a given
 * filter that contradicts the query (status=resolved with is:unresolved) is refused, since
 * either winning would surprise someone. Without any status, issues are unresolved ones.
 */
export function issueFilter(query: string | undefined, given: GivenIssueFilters = {}): IssueFilter {
  const terms = parseSearch(query ?? '', ISSUE_SEARCH);
  const filters = terms.filter((t): t is FilterTerm => t.kind === 'filter');
  const positive = (key: string) => single(filters.filter((t) => t.key === key && !t.negated));
  const negated = (key: string) => filters.filter((t) => t.key === key && t.negated).map((t) => t.value);

  const is = positive('is');
  const level = positive('level');
  const notIs = filters.find((t) => t.key === 'is' && t.negated);
  if (notIs?.value === 'all') throw new SearchSyntaxError(notIs.token, '!is:all would match nothing; use is:all');
  agree('status', given.status, is, (v) => v === 'all');
  agree('level', given.level, level);

  const givenStatus = given.status === 'all' ? undefined : given.status;
  const status = (givenStatus ?? is?.value ?? given.status ?? (notIs ? 'all' : 'unresolved')) as IssueStatus | 'all';
  const text = terms
    .filter((t) => t.kind === 'text')
    .map((t) => t.value)
    .join(' ');
  const environment = positive('environment')?.value;
  const firstRelease = positive('firstRelease')?.value;
  const levelValue = (given.level ?? level?.value) as Level | undefined;
  const exclude: NonNullable<IssueQuery['exclude']> = {};
  const statuses = negated('is') as IssueStatus[];
  const levels = negated('level') as Level[];
  const environments = negated('environment');
  const firstReleases = negated('firstRelease');
  if (statuses.length) exclude.statuses = statuses;
  if (levels.length) exclude.levels = levels;
  if (environments.length) exclude.environments = environments;
  if (firstReleases.length) exclude.firstReleases = firstReleases;
  return {
    status,
    ...(levelValue ? { level: levelValue } : {}),
    ...(text ? { text } : {}),
    ...(environment ? { environment } : {}),
    ...(firstRelease ? { firstRelease } : {}),
    ...(Object.keys(exclude).length ? { exclude } : {}),
  };
}

/** The one positive term of a key; an issue has one status, level and first release, so two are refused. */
function single(terms: FilterTerm[]): FilterTerm | undefined {
  const [first, second] = terms;
  if (second) {
    throw new SearchSyntaxError(
      second.token,
      `${second.key}: is given twice (also ${first!.token}); an issue search takes one, or exclude others with !${second.key}:`,
    );
  }
  return first;
}

/** A filter given beside the query must not contradict the query's term for it. */
function agree(name: string, given: string | undefined, term: FilterTerm | undefined, isWildcard = (_: string) => false): void {
  if (!given || !term || given === term.value || isWildcard(given) || isWildcard(term.value)) return;
  throw new UserInputError(
    `${name} "${given}" and the query's ${JSON.stringify(term.token)} disagree: give the ${name} in one place`,
  );
}
