// What the issue page shows, read through the same core queries as the MCP tools
// (get_issue_context, check_resolution): the issue, the event (the latest, or the one a
// permalink names), its neighbours, the chart's series, the resolution verdict, activity,
// similar issues, its tag summary, and the logs of its trace.
import { NotFoundError } from '../../core/errors.ts';
import { dailySeries, hourlySeries } from '../../core/issues/event-series.ts';
import { latestIssueEvent } from '../../core/issues/latest-event.ts';
import { resolutionReport, type ResolutionReport } from '../../core/issues/resolution-report.ts';
import { findSimilarIssues } from '../../core/issues/similar.ts';
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { EventNeighbours, StoredEvent } from '../../core/ports/event-store.ts';
import type { Issue, IssueActivity, Project } from '../../core/ports/metadata-store.ts';
import type { TagSummary } from '../../core/ports/issue-store.ts';
import { parseShortId } from '../../core/projects/short-id.ts';
import { debugIdsNeeded } from '../../core/sourcemaps/maps-needed.ts';
import type { OrganizationPage } from '../organization-page.ts';

const TAG_KEYS = 12;
const TAG_VALUES = 3;
const LOG_LIMIT = 50;

export type ChartPeriod = '24h' | '14d';

export interface ChartPoint {
  at: Date;
  count: number;
}

export interface IssuePageData {
  project: Project;
  issue: Issue;
  event: StoredEvent | undefined;
  /** True when the address named the event (a permalink). */
  pinned: boolean;
  /** The environment the latest event was asked from (get_issue_context's environment); absent for any. */
  environment: string | undefined;
  neighbours: EventNeighbours;
  period: ChartPeriod;
  series: ChartPoint[];
  resolution: ResolutionReport;
  activity: IssueActivity[];
  similar: Awaited<ReturnType<typeof findSimilarIssues>>;
  tags: TagSummary[];
  logs: LogRecord[];
  /** Debug IDs the event's frames named that no uploaded source map matched. */
  unmatchedDebugIds: string[];
}

export async function findIssue(page: OrganizationPage, shortId: string): Promise<{ project: Project; issue: Issue }> {
  const notFound = new NotFoundError(
    `there is no issue ${shortId.slice(0, 60)}: short ids look like WEB-APP-12 (the Issues page lists them)`,
  );
  const parsed = parseShortId(shortId);
  if (!parsed) throw notFound;
  const project = await page.deps.metadata.findProject(page.organization.id, parsed.projectSlug);
  const issue = project && (await page.deps.metadata.findIssue(project.id, parsed.number));
  if (!project || !issue) throw notFound;
  return { project, issue };
}

export async function loadIssuePage(
  page: OrganizationPage,
  shortId: string,
  eventId: string | undefined,
  period: ChartPeriod,
  environment?: string,
): Promise<IssuePageData> {
  const { deps } = page;
  const { project, issue } = await findIssue(page, shortId);
  const now = page.now();
  let event: StoredEvent | undefined;
  if (eventId !== undefined) {
    event = await deps.events.getEvent(project.id, eventId);
    if (!event || event.issueId !== issue.id) {
      throw new NotFoundError(`${issue.shortId} has no event ${eventId.slice(0, 40)}: it may have been removed by retention`);
    }
  } else {
    event = await latestIssueEvent(deps.events, issue, environment);
  }
  const [neighbours, series, resolution, activity, similar, tags, logs] = await Promise.all([
    event ? deps.events.eventNeighbours(project.id, issue.id, event.eventId) : { older: null, newer: null },
    period === '24h'
      ? hourlySeries(deps.events, project.id, issue.id, now).then((s) => s.map(({ hour, count }) => ({ at: hour, count })))
      : dailySeries(deps.events, project.id, issue.id, now).then((s) =>
          s.map(({ day, count }) => ({ at: new Date(`${day}T00:00:00Z`), count })),
        ),
    resolutionReport(deps, issue, now),
    deps.metadata.listIssueActivity(issue.id, 50),
    findSimilarIssues(deps.metadata, issue),
    deps.metadata.tagSummary(issue.id, TAG_KEYS, TAG_VALUES),
    // Within retention, as every other log search: with no bound it read back to the first record kept.
    event?.traceId
      ? deps.logs.searchLogs({
          projectId: project.id,
          traceId: event.traceId,
          since: now.getTime() / 1000 - deps.maxLogWindowMinutes * 60,
          limit: LOG_LIMIT,
        })
      : undefined,
  ]);
  return {
    project,
    issue,
    event,
    pinned: eventId !== undefined,
    environment,
    neighbours,
    period,
    series,
    resolution,
    activity,
    similar,
    tags,
    logs: logs?.items ?? [],
    unmatchedDebugIds: event ? [...new Set(debugIdsNeeded(event.payload).values())] : [],
  };
}
