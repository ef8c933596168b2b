// What's new (/organizations/{org}/whats-new): what needs attention in the last few minutes,
// hours or days across the organization's projects (or one), each issue with its reasons. It
// runs the one operation whats_new runs (core/issues/whats-new.ts), so the page and the tool
// show the same issues for the same reasons.
import { h } from 'preact';
import { NotFoundError, UserInputError } from '../../core/errors.ts';
import { findAttention } from '../../core/issues/whats-new.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { NoProjectsPage } from '../pages/no-projects.tsx';
import { WHATS_NEW_WINDOWS, WhatsNewPage } from '../pages/whats-new.tsx';

/** The rows shown at most; more found are said so (the tool shows 25). */
const MAX_SHOWN = 100;
const DEFAULT_MINUTES = 1440;
/** Environments offered in the filter; one beyond them still works when typed into the address. */
const MAX_ENVIRONMENTS = 100;

export const whatsNewRoutes: OrganizationRoute[] = [{ method: 'GET', path: /^whats-new$/, handle: showWhatsNew }];

const WHATS_NEW_NEEDS =
  'What needs attention is counted over projects. Create one, point a Sentry SDK at its DSN, and new, regressed and rising issues show up here.';

async function showWhatsNew(page: OrganizationPage): Promise<void> {
  page.require('read');
  const all = await page.deps.metadata.listProjects(page.organization.id);
  const frame = {
    assets: page.assets,
    csrf: page.csrf,
    viewer: page.viewer,
    organization: page.organization.slug,
    href: page.href,
  };
  if (all.length === 0)
    return page.send(200, h(NoProjectsPage, { ...frame, title: "What's new", current: 'whats-new', purpose: WHATS_NEW_NEEDS }));

  const params = new URLSearchParams(page.ctx.querystring);
  const asked = params.get('minutes') || String(DEFAULT_MINUTES);
  const choice = WHATS_NEW_WINDOWS.find(([minutes]) => String(minutes) === asked);
  if (!choice)
    throw new UserInputError(
      `minutes=${asked.slice(0, 20)} is not a window this page offers: use one of ${WHATS_NEW_WINDOWS.map(([m]) => m).join(', ')}.`,
    );
  const slug = params.get('project') ?? '';
  const chosen = slug ? all.find((p) => p.slug === slug) : undefined;
  if (slug && !chosen) throw new NotFoundError(`No project ${slug.slice(0, 100)} in ${page.organization.slug}.`);
  const projects = chosen ? [chosen] : all;
  const environment = params.get('environment') || undefined;
  const environments = await environmentsOf(page, projects);

  // As whats_new: the window no wider than retention keeps events.
  const maxWindowMinutes = page.deps.maxLogWindowMinutes;
  const minutes = Math.min(choice[0], maxWindowMinutes);
  const until = page.now();
  const since = new Date(until.getTime() - minutes * 60_000);
  const found = await findAttention(page.deps, {
    projects,
    since,
    until,
    minutes,
    maxWindowMinutes,
    environment,
    sort: 'priority',
  });
  page.send(
    200,
    h(WhatsNewPage, {
      ...frame,
      projects: all,
      project: chosen,
      environments: environment && !environments.includes(environment) ? [environment, ...environments] : environments,
      environment,
      minutes: choice[0],
      attention: found.all.slice(0, MAX_SHOWN),
      counts: found.counts,
      found: found.all.length,
      truncated: found.all.length > MAX_SHOWN || found.capped,
      capped: found.capped,
      now: until,
    }),
  );
}

/** The environments events came from in the projects, in order, at most MAX_ENVIRONMENTS. */
async function environmentsOf(page: OrganizationPage, projects: Array<{ id: number }>): Promise<string[]> {
  const lists = await Promise.all(projects.map((p) => page.deps.metadata.listEnvironments(p.id, MAX_ENVIRONMENTS)));
  return [...new Set(lists.flat())].sort().slice(0, MAX_ENVIRONMENTS);
}
