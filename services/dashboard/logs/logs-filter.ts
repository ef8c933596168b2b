// What the Logs page's address holds: the project, the search (core/search/log-search.ts), the
// window (a preset, or from/to once a histogram bar narrowed it), the order (newest first, or
// oldest first as search_logs' sort: oldest), the attributes shown as columns and the page's cursor. Read from the query string, written back into every link, so
// any view of the logs can be shared by its address.
import { UserInputError } from '../../core/errors.ts';
import { LOG_ORDERS, type LogOrder } from '../../core/ports/log-store.ts';
import { pagedWindowStart } from '../../core/logs/windowed-cursor.ts';

export const LOG_WINDOWS = ['15m', '1h', '24h', '7d', '30d'] as const;
export type LogWindow = (typeof LOG_WINDOWS)[number];
const WINDOW_MINUTES: Record<LogWindow, number> = { '15m': 15, '1h': 60, '24h': 1440, '7d': 10_080, '30d': 43_200 };
const DEFAULT_WINDOW: LogWindow = '1h';
const MAX_COLUMNS = 8;
/** Bars in the histogram: enough to narrow an hour to two minutes in one click. */
const BARS = 30;

export interface LogsFilter {
  /** The project's slug; empty means the organization's first. */
  project: string;
  query: string;
  window: LogWindow;
  /** ISO 8601; when either is set it replaces the preset window. */
  from?: string | undefined;
  to?: string | undefined;
  sort: LogOrder;
  columns: string[];
  cursor?: string | undefined;
}

/** The filter an address asks for; throws UserInputError saying which parameter is wrong and what it takes. */
export function readLogsFilter(params: URLSearchParams): LogsFilter {
  const window = params.get('window') || DEFAULT_WINDOW;
  if (!(LOG_WINDOWS as readonly string[]).includes(window)) {
    throw new UserInputError(`window "${window.slice(0, 20)}" is not one of ${LOG_WINDOWS.join(', ')}`);
  }
  const sort = params.get('sort') || 'newest';
  if (!(LOG_ORDERS as readonly string[]).includes(sort)) {
    throw new UserInputError(`sort "${sort.slice(0, 20)}" is not one of ${LOG_ORDERS.join(', ')}`);
  }
  const from = params.get('from') || undefined;
  const to = params.get('to') || undefined;
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (value !== undefined && Number.isNaN(Date.parse(value))) {
      throw new UserInputError(`${name} "${value.slice(0, 40)}" is not a time: write ISO 8601, e.g. 2026-01-31T09:30:00Z`);
    }
  }
  const columns = [
    ...new Set(
      (params.get('columns') ?? '')
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    ),
  ];
  if (columns.length > MAX_COLUMNS) throw new UserInputError(`at most ${MAX_COLUMNS} columns: remove one`);
  const query = params.get('query') ?? '';
  if (query.length > 500) throw new UserInputError('the search is longer than 500 characters: shorten it');
  return {
    project: params.get('project') ?? '',
    query,
    window: window as LogWindow,
    from,
    to,
    sort: sort as LogOrder,
    columns,
    cursor: params.get('cursor') || undefined,
  };
}

/**
 * The window in float seconds: from/to when given, else the preset, never further back than
 * retention keeps. A later page of a preset keeps the start its first page had (`pagedFrom`,
 * carried in the cursor: core/logs/windowed-cursor.ts), so that paging on minutes later skips nothing.
 */
export function logsWindow(
  filter: LogsFilter,
  now: Date,
  maxMinutes: number,
  pagedFrom?: number,
): { since: number; until: number } {
  const end = now.getTime() / 1000;
  // Retention's start, rounded up to a minute: a window cut to it keeps its histogram on the
  // store's per-minute counts. From any other second, every record of the window was read and
  // counted (from=2000-01-01: all 90 days of them, on every page view).
  const oldest = Math.ceil((end - maxMinutes * 60) / 60) * 60;
  if (filter.from || filter.to) {
    const until = filter.to ? Date.parse(filter.to) / 1000 : end;
    const since = Math.max(oldest, filter.from ? Date.parse(filter.from) / 1000 : until - WINDOW_MINUTES[filter.window] * 60);
    if (until <= since) throw new UserInputError('the window ends before it starts: pick a window from the list instead');
    return { since, until };
  }
  // A preset starts on a minute, so that its histogram's bars (whole minutes) can be drawn
  // from the store's per-minute counts; it is up to a minute shorter than its name says.
  const paged = pagedWindowStart(pagedFrom, end, oldest);
  if (paged !== undefined) return { since: paged, until: end };
  return { since: Math.ceil(Math.max(oldest, end - WINDOW_MINUTES[filter.window] * 60) / 60) * 60, until: end };
}

/**
 * The width of a bar: about a BARS-th of the window, in whole minutes once that is a minute
 * or more (so a window from a minute's start is drawn from per-minute counts; 15 to 30 bars).
 */
export function barSeconds(windowSeconds: number): number {
  const even = windowSeconds / BARS;
  return even < 60 ? Math.max(1, Math.ceil(even)) : Math.ceil(even / 60) * 60;
}

/** The query string for the filter with some parts changed; a change of search or window starts again at the first page. */
export function logsParams(filter: LogsFilter, changes: Partial<LogsFilter> = {}): string {
  const next = { ...filter, ...changes };
  if (!('cursor' in changes)) next.cursor = undefined;
  const params = new URLSearchParams();
  if (next.project) params.set('project', next.project);
  if (next.query) params.set('query', next.query);
  if (next.from || next.to) {
    if (next.from) params.set('from', next.from);
    if (next.to) params.set('to', next.to);
  } else if (next.window !== DEFAULT_WINDOW) {
    params.set('window', next.window);
  }
  if (next.sort !== 'newest') params.set('sort', next.sort);
  if (next.columns.length) params.set('columns', next.columns.join(','));
  if (next.cursor) params.set('cursor', next.cursor);
  return params.toString();
}

/** The address of the same search over one bar's window (the Logs page at `logsPath`). */
export function barHref(logsPath: string, filter: LogsFilter, bar: { start: number; end: number }): string {
  const from = new Date(Math.floor(bar.start * 1000)).toISOString();
  const to = new Date(Math.ceil(bar.end * 1000)).toISOString();
  return `${logsPath}?${logsParams(filter, { from, to })}`;
}

/** The search with `key:value` added, quoted when it needs to be (the page's "add to query"). */
export function withTerm(query: string, key: string, value: string): string {
  const plain = /^[^\s"<>=]+$/.test(value) && value !== '';
  const quoted = plain ? value : `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  return [query.trim(), `${key}:${quoted}`].filter(Boolean).join(' ');
}
