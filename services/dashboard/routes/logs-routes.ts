// The Logs page (/organizations/{org}/logs) and the trace view (.../traces/{traceId}), for the
// `read` capability. Both read the stores search_logs reads, through core's log search syntax;
// a refused search is a 400 page saying what was wrong, never a 500.
import { h } from 'preact';
import { NotFoundError, UserInputError } from '../../core/errors.ts';
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { LogVolume } from '../../core/ports/log-store.ts';
import type { Project } from '../../core/ports/tenancy-store.ts';
import { logSearch } from '../../core/search/log-search.ts';
import { volumeBuckets } from '../components/logs/volume-chart.tsx';
import { formatDate } from '../components/formats.ts';
import { barSeconds, logsWindow, readLogsFilter, type LogsFilter } from '../logs/logs-filter.ts';
import { searchLogsCall } from '../logs/search-logs-call.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { LogsPage } from '../pages/logs.tsx';
import { LOGS_NEED, NoProjectsPage } from '../pages/no-projects.tsx';
import { showTrace } from './trace-route.ts';

const PAGE_SIZE = 50;

export const logsRoutes: OrganizationRoute[] = [
  { method: 'GET', path: /^logs$/, handle: showLogs },
  { method: 'GET', path: /^traces\/([^/]+)$/, handle: showTrace },
];

async function showLogs(page: OrganizationPage): Promise<void> {
  page.require('read');
  const projects = await page.deps.metadata.listProjects(page.organization.id);
  const frame = {
    assets: page.assets,
    csrf: page.csrf,
    viewer: page.viewer,
    organization: page.organization.slug,
    href: page.href,
  };
  if (projects.length === 0)
    return page.send(200, h(NoProjectsPage, { ...frame, title: 'Logs', current: 'logs', purpose: LOGS_NEED }));
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
    filter = { project: project.slug, query: params.get('query')?.slice(0, 500) ?? '', window: '1h', columns: [] };
    error = refused.message;
  }
  filter.project = project.slug;
  let window = { since: now.getTime() / 1000 - 3600, until: now.getTime() / 1000 };
  let logs: LogRecord[] = [];
  let nextCursor: string | undefined;
  let volume: LogVolume[] = [];
  let countedSince: number | undefined;
  let call: string | undefined;
  const bucketSeconds = () => barSeconds(window.until - window.since);
  try {
    window = logsWindow(filter, now, page.deps.maxLogWindowMinutes);
    const search = logSearch(filter.query);
    const query = { projectId: project.id, ...search, ...window };
    const [found, counts] = await Promise.all([
      page.deps.logs.searchLogs({ ...query, limit: PAGE_SIZE, ...(filter.cursor ? { cursor: filter.cursor } : {}) }),
      page.deps.logs.logVolume(query, bucketSeconds()),
    ]);
    logs = found.items;
    nextCursor = found.nextCursor;
    volume = counts.counts;
    countedSince = counts.countedSince;
    call = searchLogsCall({ project: project.slug, search, ...window, limit: PAGE_SIZE, cursor: filter.cursor });
  } catch (refused) {
    // A search that does not parse, or a cursor edited by hand.
    if (!(refused instanceof UserInputError)) throw refused;
    error ??= refused.message;
  }
  const zone = page.viewer.timeZone;
  const at = (seconds: number) =>
    formatDate(new Date(seconds * 1000), { dateStyle: 'medium', timeStyle: 'medium', timeZone: zone ?? 'UTC' }) +
    (zone ? '' : ' UTC');
  page.send(
    error ? 400 : 200,
    h(LogsPage, {
      ...frame,
      projects,
      project,
      filter,
      logs,
      buckets: volumeBuckets(volume, window.since, window.until, bucketSeconds()),
      countedSince,
      nextCursor,
      call,
      windowText: `${at(window.since)} to ${at(window.until)}`,
      error,
    }),
  );
}

/** The project the address names (the first when it names none); another organization's is not found. */
function projectOf(projects: Project[], slug: string): Project {
  if (!slug) return projects[0]!;
  const project = projects.find((p) => p.slug === slug);
  if (!project) throw new NotFoundError(`this organization has no project "${slug.slice(0, 60)}"`);
  return project;
}
