// The Logs page (/organizations/{org}/logs) and the trace view (.../traces/{traceId}), for the
// `read` capability. Both read the stores search_logs reads, through core's log search syntax;
// a refused search is a 400 page saying what was wrong, never a 500.
//
// The histogram of a search by level or environment comes with the page (per-minute counts);
// one by text or attributes tests rows one by one, so the page comes first and its histogram
// after, from /logs/volume (an htmx fragment; without JavaScript a link there opens the whole
// page with it).
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { NotFoundError, UserInputError } from '../../core/errors.ts';
import type { LogRecord } from '../../core/logs/log-record.ts';
import { readWindowedCursor, windowedCursor } from '../../core/logs/windowed-cursor.ts';
import type { LogVolumeCounts } from '../../core/ports/log-store.ts';
import type { Project } from '../../core/ports/tenancy-store.ts';
import { logSearch, searchesContent, type LogSearch } from '../../core/search/log-search.ts';
import { VolumeChart, volumeBuckets } from '../components/logs/volume-chart.tsx';
import { formatDate } from '../components/formats.ts';
import { barHref, barSeconds, logsParams, logsWindow, readLogsFilter, type LogsFilter } from '../logs/logs-filter.ts';
import { searchLogsCall } from '../logs/search-logs-call.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { LogsPage, type LogsVolume } from '../pages/logs.tsx';
import { LOGS_NEED, NoProjectsPage } from '../pages/no-projects.tsx';
import { showTrace } from './trace-route.ts';

const PAGE_SIZE = 50;

export const logsRoutes: OrganizationRoute[] = [
  { method: 'GET', path: /^logs$/, handle: (page) => showLogs(page, 'when-cheap') },
  {
    method: 'GET',
    path: /^logs\/volume$/,
    handle: (page) => (page.partial ? showVolume(page) : showLogs(page, 'always')),
  },
  { method: 'GET', path: /^traces\/([^/]+)$/, handle: showTrace },
];

/** What an address of the Logs page asks for, read and checked. */
interface LogsView {
  projects: Project[];
  project: Project;
  filter: LogsFilter;
  window: { since: number; until: number };
  /** Undefined when the search or window was refused: `error` says why. */
  search: LogSearch | undefined;
  error: string | undefined;
}

/** The view an address asks for; undefined when the organization has no project (the page is sent). */
async function readView(page: OrganizationPage): Promise<LogsView | undefined> {
  page.require('read');
  const projects = await page.deps.metadata.listProjects(page.organization.id);
  if (projects.length === 0) {
    page.send(200, h(NoProjectsPage, { ...frameOf(page), title: 'Logs', current: 'logs', purpose: LOGS_NEED }));
    return undefined;
  }
  const params = new URLSearchParams(page.ctx.querystring);
  const project = projectOf(projects, params.get('project') ?? '');
  const now = page.now();
  let error: string | undefined;
  let filter: LogsFilter;
  try {
    filter = readLogsFilter(params);
  } catch (refused) {
    if (!(refused instanceof UserInputError)) throw refused;
    // A hand-edited address: the last hour unfiltered, and why.
    filter = {
      project: project.slug,
      query: params.get('query')?.slice(0, 500) ?? '',
      window: '1h',
      sort: 'newest',
      columns: [],
    };
    error = refused.message;
  }
  filter.project = project.slug;
  let window = { since: now.getTime() / 1000 - 3600, until: now.getTime() / 1000 };
  let search: LogSearch | undefined;
  try {
    const pagedFrom = filter.cursor === undefined ? undefined : readWindowedCursor(filter.cursor).sinceMs;
    window = logsWindow(filter, now, page.deps.maxLogWindowMinutes, pagedFrom === undefined ? undefined : pagedFrom / 1000);
    search = logSearch(filter.query);
  } catch (refused) {
    if (!(refused instanceof UserInputError)) throw refused;
    error ??= refused.message;
  }
  return { projects, project, filter, window, search: error ? undefined : search, error };
}

async function showLogs(page: OrganizationPage, volumeWhen: 'when-cheap' | 'always'): Promise<void> {
  const view = await readView(page);
  if (!view) return;
  const { project, filter, window, search } = view;
  let error = view.error;
  let logs: LogRecord[] = [];
  let nextCursor: string | undefined;
  let searchedTo: number | undefined;
  let volume: LogsVolume | undefined;
  let call: string | undefined;
  if (search) {
    const query = { projectId: project.id, ...search, ...window };
    const later = volumeWhen === 'when-cheap' && testsEachRecord(search);
    try {
      const [found, counts] = await Promise.all([
        page.deps.logs.searchLogs({
          ...query,
          limit: PAGE_SIZE,
          order: filter.sort,
          ...(filter.cursor ? { cursor: readWindowedCursor(filter.cursor).store } : {}),
        }),
        later ? undefined : page.deps.logs.logVolume(query, barSeconds(window.until - window.since)),
      ]);
      logs = found.items;
      nextCursor = found.nextCursor === undefined ? undefined : windowedCursor(window.since * 1000, found.nextCursor);
      searchedTo = found.searchedTo;
      // The fragment's address pins the window, so that the bars count what the rows show.
      const pinned = logsParams(filter, { from: iso(window.since), to: iso(window.until) });
      volume = counts
        ? { kind: 'counted', ...chartOf(counts, window) }
        : { kind: 'later', fragmentHref: `${page.href('logs', 'volume')}?${pinned}` };
      call = searchLogsCall({
        project: project.slug,
        search,
        ...window,
        sort: filter.sort,
        limit: PAGE_SIZE,
        cursor: filter.cursor,
      });
    } catch (refused) {
      // A cursor edited by hand.
      if (!(refused instanceof UserInputError)) throw refused;
      error = refused.message;
    }
  }
  const zone = page.viewer.timeZone;
  const at = (seconds: number) =>
    formatDate(new Date(seconds * 1000), { dateStyle: 'medium', timeStyle: 'medium', timeZone: zone ?? 'UTC' }) +
    (zone ? '' : ' UTC');
  page.send(
    error ? 400 : 200,
    h(LogsPage, {
      ...frameOf(page),
      projects: view.projects,
      project,
      filter,
      logs,
      volume,
      nextCursor,
      call,
      searchedToText: searchedTo === undefined ? undefined : at(searchedTo),
      windowText: `${at(window.since)} to ${at(window.until)}`,
      error,
    }),
  );
}

/** The histogram alone, for the Logs page of a search by text or attributes to fetch. */
async function showVolume(page: OrganizationPage): Promise<void> {
  const view = await readView(page);
  if (!view) return;
  if (!view.search) throw new UserInputError(view.error ?? 'the search is not valid');
  const counts = await page.deps.logs.logVolume(
    { projectId: view.project.id, ...view.search, ...view.window },
    barSeconds(view.window.until - view.window.since),
  );
  const { buckets, countedSince } = chartOf(counts, view.window);
  const chart = h(VolumeChart, {
    buckets,
    countedSince,
    bucketHref: (bucket) => barHref(page.href('logs'), view.filter, bucket),
    zone: page.viewer.timeZone,
  });
  page.ctx.status = 200;
  page.ctx.type = 'text/html; charset=utf-8';
  page.ctx.set('Cache-Control', 'no-store');
  page.ctx.body = renderToString(chart);
}

function chartOf(counts: LogVolumeCounts, window: { since: number; until: number }) {
  const buckets = volumeBuckets(counts.counts, window.since, window.until, barSeconds(window.until - window.since));
  return { buckets, countedSince: counts.countedSince };
}

/** Whether a search tests each record's text or attributes (so its histogram reads rows, not counts). */
function testsEachRecord(search: LogSearch): boolean {
  return !search.traceId && searchesContent(search); // a trace's records are few, found through their index
}

function frameOf(page: OrganizationPage) {
  return { assets: page.assets, csrf: page.csrf, viewer: page.viewer, organization: page.organization.slug, href: page.href };
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The project the address names (the first when it names none); another organization's is not found. */
function projectOf(projects: Project[], slug: string): Project {
  if (!slug) return projects[0]!;
  const project = projects.find((p) => p.slug === slug);
  if (!project) throw new NotFoundError(`this organization has no project "${slug.slice(0, 60)}"`);
  return project;
}
