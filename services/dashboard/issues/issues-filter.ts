// What the Issues page's address says: the project, the status tab, the filters (level,
// environment, first release, time window), the search in the one issue search syntax
// (core/search), the sort and the cursor. All of it is GET parameters, so a filtered list is a
// link to share; bulk actions carry the same fields so "all matching" means what the list showed.
import { LEVELS, type Level } from '../../core/event/level.ts';
import { UserInputError } from '../../core/errors.ts';
import { ISSUE_SORTS, ISSUE_STATUSES, type IssueQuery, type IssueSort, type IssueStatus } from '../../core/ports/issue-store.ts';
import { issueFilter } from '../../core/search/issue-search.ts';

export const WINDOWS = { '1h': 3600, '24h': 86_400, '7d': 7 * 86_400, '14d': 14 * 86_400, '30d': 30 * 86_400 } as const;
export type TimeWindow = keyof typeof WINDOWS;

export interface ListFilter {
  /** The project's slug; empty for the organization's first project. */
  project: string;
  /** The status tab as given; absent means the query's is: term, or unresolved. */
  status?: IssueStatus | 'all';
  level?: Level;
  environment?: string;
  release?: string;
  window?: TimeWindow;
  /** The search box, as typed. */
  query: string;
  sort: IssueSort;
  cursor?: string;
}

const FIELDS = ['project', 'status', 'level', 'environment', 'release', 'window', 'query', 'sort'] as const;
const MAX_QUERY = 200;

/** The filter an address or a posted form names; a value that is none of the choices is refused, naming them. */
export function readListFilter(params: URLSearchParams): ListFilter {
  const value = (name: string) => params.get(name)?.trim() || undefined;
  const oneOf = <T extends string>(name: string, choices: readonly T[]): T | undefined => {
    const given = value(name);
    if (given === undefined || (choices as readonly string[]).includes(given)) return given as T | undefined;
    throw new UserInputError(`${name} "${given.slice(0, 40)}" is not one of ${choices.join(', ')}`);
  };
  const query = params.get('query') ?? '';
  if (query.length > MAX_QUERY)
    throw new UserInputError(`the search is ${query.length} characters long; keep it to ${MAX_QUERY}`);
  const filter: ListFilter = { project: value('project') ?? '', query, sort: oneOf('sort', ISSUE_SORTS) ?? 'lastSeen' };
  const status = oneOf('status', [...ISSUE_STATUSES, 'all'] as const);
  const level = oneOf('level', LEVELS);
  const window = oneOf('window', Object.keys(WINDOWS) as TimeWindow[]);
  if (status) filter.status = status;
  if (level) filter.level = level;
  if (window) filter.window = window;
  const environment = value('environment');
  const release = value('release');
  const cursor = value('cursor');
  if (environment) filter.environment = environment;
  if (release) filter.release = release;
  if (cursor) filter.cursor = cursor;
  return filter;
}

/**
 * The IssueQuery for a filter: the search parsed by core (its SearchSyntaxError names the
 * offending token), with the form's filters added; a form filter the query contradicts is refused.
 */
export function issueQueryOf(filter: ListFilter, projectId: number, now: Date): IssueQuery {
  const searched = issueFilter(filter.query, { status: filter.status, level: filter.level });
  const query: IssueQuery = { projectId, ...searched };
  if (filter.environment) query.environment = agree('environment', filter.environment, searched.environment);
  if (filter.release) query.firstRelease = agree('firstRelease', filter.release, searched.firstRelease);
  if (filter.window) query.lastSeenSince = new Date(now.getTime() - WINDOWS[filter.window] * 1000);
  return query;
}

function agree(key: string, chosen: string, searched: string | undefined): string {
  if (searched !== undefined && searched !== chosen) {
    throw new UserInputError(`the filter says ${key} "${chosen}" but the search says ${key}:${searched}: keep one of them`);
  }
  return chosen;
}

/** The filter as GET parameters (defaults left out), with changes; a change of anything but the cursor starts at the first page. */
export function filterParams(
  filter: ListFilter,
  changes: Partial<Record<(typeof FIELDS)[number] | 'cursor', string | undefined>> = {},
): URLSearchParams {
  const params = new URLSearchParams();
  const merged: Record<string, string | undefined> = { ...filter, ...changes };
  if (merged.sort === 'lastSeen') delete merged.sort;
  for (const name of FIELDS) {
    const v = merged[name];
    if (v) params.set(name, v);
  }
  if ('cursor' in changes && changes.cursor) params.set('cursor', changes.cursor);
  return params;
}

/** The filter's fields as hidden inputs' name and value (for the bulk form), cursor left out. */
export function filterFields(filter: ListFilter): Array<[string, string]> {
  return [...filterParams(filter).entries()];
}
