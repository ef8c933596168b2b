// The live tail: its page (/organizations/{org}/logs/live) and its Server-Sent Events stream
// (.../logs/live/stream), both for the `read` capability and both taking the project and filters
// as GET parameters (logs/tail-filter.ts). The session is checked before a stream opens (signed
// out: organization-routes.ts redirects to /login), and again every few seconds while it streams;
// a project of another organization is a 404.
import { PassThrough } from 'node:stream';
import { h } from 'preact';
import { can } from '../../core/auth/capabilities.ts';
import { NotFoundError } from '../../core/errors.ts';
import { resumeSession } from '../../core/people/sessions.ts';
import { TAIL_LIMITS } from '../../core/logs/tail-guard.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import { startLogTail } from '../logs/log-tail-stream.ts';
import { readTailFilter, tailParams, type TailFilter } from '../logs/tail-filter.ts';
import { MAX_TAILS_PER_PERSON, TailSlots } from '../logs/tail-slots.ts';
import type { OrganizationDeps, OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { LogTailPage } from '../pages/log-tail.tsx';
import { LOGS_NEED, NoProjectsPage } from '../pages/no-projects.tsx';

/** Rows the page keeps (assets/log-tail.ts drops the oldest beyond them). */
const MAX_ROWS = 500;

// One count of open tails per app (its deps), not per module: tests build several apps in one process.
const slotsByApp = new WeakMap<OrganizationDeps, TailSlots>();
function slotsOf(deps: OrganizationDeps): TailSlots {
  let slots = slotsByApp.get(deps);
  if (!slots) slotsByApp.set(deps, (slots = new TailSlots()));
  return slots;
}

/** The filter's project, or the organization's first; another organization's is not found. */
async function tailedProject(
  page: OrganizationPage,
  filter: TailFilter,
): Promise<{ project: Project; projects: Project[] } | undefined> {
  const projects = await page.deps.metadata.listProjects(page.organization.id);
  if (projects.length === 0) return undefined;
  if (!filter.project) return { project: projects[0]!, projects };
  const project = projects.find((p) => p.slug === filter.project);
  if (!project) {
    throw new NotFoundError(
      `no project "${filter.project.slice(0, 60)}" in ${page.organization.slug}: the Projects page lists them`,
    );
  }
  return { project, projects };
}

export const logTailRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: /^logs\/live$/,
    async handle(page) {
      page.require('read');
      const filter = readTailFilter(new URLSearchParams(page.ctx.querystring));
      const frame = { assets: page.assets, csrf: page.csrf, viewer: page.viewer, organization: page.organization.slug };
      const found = await tailedProject(page, filter);
      if (!found)
        return page.send(
          200,
          h(NoProjectsPage, { ...frame, href: page.href, title: 'Live tail', current: 'logs', purpose: LOGS_NEED }),
        );
      const { project, projects } = found;
      const params = tailParams({ ...filter, project: project.slug });
      page.send(
        200,
        h(LogTailPage, {
          ...frame,
          projects,
          project,
          filter,
          streamHref: `${page.href('logs', 'live', 'stream')}?${params}`,
          logsHref: `${page.href('logs')}?${new URLSearchParams({ project: project.slug }).toString()}`,
          maxRows: MAX_ROWS,
          maxMinutes: TAIL_LIMITS.maxDurationMs / 60_000,
          maxPerSecond: TAIL_LIMITS.maxRecordsPerSecond,
        }),
      );
    },
  },
  {
    method: 'GET',
    path: /^logs\/live\/stream$/,
    async handle(page) {
      page.require('read');
      const filter = readTailFilter(new URLSearchParams(page.ctx.querystring));
      const found = await tailedProject(page, filter);
      if (!found) throw new NotFoundError(`${page.organization.slug} has no project yet, so there are no logs to tail`);
      const { ctx } = page;
      const body = new PassThrough();
      ctx.status = 200;
      ctx.type = 'text/event-stream';
      ctx.set({ 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
      ctx.body = body;

      const release = slotsOf(page.deps).take(page.viewer.id);
      if (!release) {
        // An event, not a 429: EventSource hides a refused answer's status and text from the page.
        body.end(
          `event: refused\ndata: ${JSON.stringify({
            message: `You have ${MAX_TAILS_PER_PERSON} live tails open already, the most at once. Close one (another tab) and start again.`,
          })}\n\n`,
        );
        return;
      }
      const stop = startLogTail({
        logs: page.deps.logs,
        query: {
          projectId: found.project.id,
          ...(filter.levels.length > 0 ? { levels: filter.levels } : {}),
          ...(filter.text ? { text: filter.text } : {}),
          ...(filter.traceId ? { traceId: filter.traceId } : {}),
        },
        write: (chunk) => body.write(chunk),
        end: () => body.end(),
        // What waits in the stream and in the response (its socket's buffer included).
        unread: () => body.readableLength + ctx.res.writableLength,
        abandon: () => ctx.res.destroy(),
        stillAllowed: async () => {
          const resumed = await resumeSession(page.deps.users, page.signed.token, page.now());
          return resumed !== undefined && can({ kind: 'user', role: resumed.user.role }, 'read');
        },
      });
      // Closed when the tail ends itself or the client goes away: either way no timer is left.
      ctx.res.once('close', () => {
        stop();
        release();
      });
    },
  },
];
