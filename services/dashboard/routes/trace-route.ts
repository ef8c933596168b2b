// The trace view (/organizations/{org}/traces/{traceId}): one request's errors and logs on one
// timeline, across every project of the organization (a browser's trace continues into its
// backend's). Errors are the events with that trace id, each linked to its issue.
import { h } from 'preact';
import { UserInputError } from '../../core/errors.ts';
import type { Issue } from '../../core/ports/issue-store.ts';
import type { OrganizationPage } from '../organization-page.ts';
import { TracePage, type TraceItem } from '../pages/trace.tsx';

/** Events and log records shown: one request's worth, with room. */
const LIMIT = 200;

export async function showTrace(page: OrganizationPage, [traceId]: string[]): Promise<void> {
  page.require('read');
  if (!/^[0-9a-fA-F]{32}$/.test(traceId!)) {
    throw new UserInputError(`"${traceId!.slice(0, 60)}" is not a trace id: a trace id is 32 hex characters`);
  }
  const trace = traceId!.toLowerCase();
  const projects = await page.deps.metadata.listProjects(page.organization.id);
  const since = page.now().getTime() / 1000 - page.deps.maxLogWindowMinutes * 60;
  const [first, ...rest] = projects.map((p) => p.id);
  // Every project's logs in one search: one per project made a page of a large organization
  // hundreds of searches over the retention window.
  const [events, logs] = await Promise.all([
    page.deps.events.eventsForTrace(
      projects.map((p) => p.id),
      trace,
      LIMIT,
    ),
    first === undefined
      ? { items: [], nextCursor: undefined }
      : page.deps.logs.searchLogs({
          projectId: first,
          moreProjectIds: rest,
          traceId: trace,
          since,
          order: 'oldest',
          limit: LIMIT,
        }),
  ]);
  const issues = new Map<number, Issue | undefined>();
  for (const id of new Set(events.map((e) => e.issueId))) issues.set(id, await page.deps.metadata.getIssue(id));
  const projectName = new Map(projects.map((p) => [p.id, p.name]));
  const items: TraceItem[] = [
    ...events.map((event): TraceItem => ({
      kind: 'error',
      event,
      issue: issues.get(event.issueId),
      project: projectName.get(event.projectId) ?? '',
    })),
    ...logs.items.map((log): TraceItem => ({ kind: 'log', log, project: projectName.get(log.projectId) ?? '' })),
  ].sort((a, b) => time(a) - time(b));
  page.send(
    200,
    h(TracePage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      href: page.href,
      traceId: trace,
      items,
      truncated: events.length === LIMIT || logs.nextCursor !== undefined,
      multipleProjects: projects.length > 1,
    }),
  );
}

function time(item: TraceItem): number {
  return item.kind === 'error' ? item.event.timestamp : item.log.timestamp;
}
