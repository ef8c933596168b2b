// The Projects pages (/organizations/{org}/projects/...): the list and the form creating a
// project, a project's Set-up page and its live installation state (an htmx fragment), and its
// DSN keys tab with the rate limit, renaming it, and the page that deletes it. Each calls the domain operation the CLI, the REST API and the
// MCP tools call (core/provisioning, core/projects); creating and the keys tab need the
// `projects` capability, checked here for every page and form.
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { ConflictError, NotFoundError, UserInputError } from '../../core/errors.ts';
import { redirectNotice } from '../redirect-notice.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import { installationState } from '../../core/projects/installation-state.ts';
import { formatDsn, slugify } from '../../core/projects/slug.ts';
import {
  addProjectKey,
  isRateLimit,
  MAX_RATE_LIMIT,
  setEventRateLimit,
  setKeyActiveIn,
} from '../../core/provisioning/project-keys.ts';
import { createProject, deleteProject, renameProject } from '../../core/provisioning/projects.ts';
import { GUIDE_PLATFORMS, isGuidePlatform } from '../../core/projects/install-guide.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { Installation } from '../pages/project-installation.tsx';
import { ProjectDeletePage } from '../pages/project-delete.tsx';
import { ProjectKeysPage } from '../pages/project-keys.tsx';
import { ProjectPage } from '../pages/project.tsx';
import { ProjectsPage } from '../pages/projects.tsx';
import type { FormNotice } from '../pages/project-parts.tsx';
import { formatCount } from '../components/formats.ts';

const DAY_SECONDS = 86_400;

/** What a redirect's ?saved= says on the page it lands on. */
const SAVED: Record<string, string> = {
  created: 'The project is created. Point an SDK at its DSN and send the test event.',
  renamed: 'The project is renamed.',
  'key-added': 'The key is added.',
  'key-disabled': 'The key is disabled: its events are refused.',
  'key-enabled': 'The key is enabled.',
  'rate-limit': 'The rate limit is saved.',
  'rate-limit-default': 'The project uses the instance default rate limit again.',
  deleted:
    'The project is deleted. Ingest refuses its DSN keys (in a cluster within 30 seconds), and its stored events, logs and source maps are erased within 15 minutes.',
};

const savedNotice = (page: OrganizationPage): FormNotice | undefined => {
  const text = redirectNotice(page.ctx, 'saved', SAVED);
  return text ? { kind: 'saved', text } : undefined;
};

/** The keys tab's saved notice, beside the form it is about. */
function savedOn(page: OrganizationPage) {
  const notice = savedNotice(page);
  if (!notice) return undefined;
  return { form: String(page.ctx.query.saved).startsWith('rate-limit') ? ('rate-limit' as const) : ('keys' as const), notice };
}

/** The project the address names, in the page's organization (another organization's is not found). */
export async function projectOf(page: OrganizationPage, slug: string): Promise<Project> {
  const project = await page.deps.metadata.findProject(page.organization.id, slug);
  if (!project) throw new NotFoundError(`no project "${slug}" in ${page.organization.slug}: the Projects page lists them`);
  return project;
}

async function listPage(page: OrganizationPage, status: number, refused?: { notice: FormNotice; name: string; slug: string }) {
  const projects = await page.deps.metadata.listProjects(page.organization.id);
  const until = page.now().getTime() / 1000;
  // One grouped count per project over its last day of events: a handful of projects, an index each.
  const rows = await Promise.all(
    projects.map(async (project) => {
      const byIssue = await page.deps.events.countEventsByIssue([project.id], until - DAY_SECONDS, until);
      return { project, eventsLastDay: [...byIssue.values()].reduce((sum, n) => sum + n, 0) };
    }),
  );
  page.send(
    status,
    h(ProjectsPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      projects: rows,
      canCreate: page.can('projects'),
      href: page.href,
      now: page.now(),
      refused,
      notice: savedNotice(page),
    }),
  );
}

async function keysPage(
  page: OrganizationPage,
  project: Project,
  status: number,
  notice?: Parameters<typeof ProjectKeysPage>[0]['notice'],
) {
  const keys = (await page.deps.metadata.listProjectKeys(project.id)).map((key) => ({
    ...key,
    dsn: formatDsn(page.deps.baseUrl, key.publicKey, project.id),
  }));
  page.send(
    status,
    h(ProjectKeysPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      project,
      keys,
      defaultEventsPerMinute: page.deps.defaultEventsPerMinute,
      href: page.href,
      now: page.now(),
      notice: notice ?? savedOn(page),
    }),
  );
}

async function deletePage(
  page: OrganizationPage,
  project: Project,
  status: number,
  refused?: { notice: FormNotice; typed: string },
) {
  const [issues, keys, sourceMaps] = await Promise.all([
    page.deps.metadata.countIssues({ projectId: project.id, status: 'all' }),
    page.deps.metadata.listProjectKeys(project.id),
    page.deps.metadata.countSourceMapArtifacts(project.id),
  ]);
  page.send(
    status,
    h(ProjectDeletePage, {
      assets: page.assets,
      organization: page.organization.slug,
      viewer: page.viewer,
      csrf: page.csrf,
      project,
      issues,
      keys: keys.length,
      sourceMaps,
      action: page.href('projects', project.slug, 'delete'),
      back: page.href('projects', project.slug),
      refused,
    }),
  );
}

/** The Set-up page; `refused`, a rename refused, with what was typed. */
async function setupPage(
  page: OrganizationPage,
  project: Project,
  status: number,
  refused?: { notice: FormNotice; typed: string },
) {
  const canManage = page.can('projects');
  const keys = canManage ? await page.deps.metadata.listProjectKeys(project.id) : [];
  const active = keys.find((key) => key.active);
  const asked = String(page.ctx.query.platform ?? '');
  const renamed = page.ctx.query.saved === 'renamed';
  page.send(
    status,
    h(ProjectPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      project,
      dsn: active && formatDsn(page.deps.baseUrl, active.publicKey, project.id),
      canManage,
      platform: isGuidePlatform(asked) ? asked : GUIDE_PLATFORMS[0].name,
      installation: await installationState(page.deps, project, page.now()),
      href: page.href,
      now: page.now(),
      // The rename form's answer shows by the form, where the page opens (#name-heading).
      ...(renamed ? { nameNotice: savedNotice(page) } : { notice: savedNotice(page) }),
      ...(refused && { nameNotice: refused.notice, typedName: refused.typed }),
      alertRulesHref: page.can('alerts') ? page.href('projects', project.slug, 'alert-rules') : undefined,
    }),
  );
}

function installationBox(page: OrganizationPage, project: Project, state: Awaited<ReturnType<typeof installationState>>) {
  const base = page.href('projects', project.slug);
  return h(Installation, {
    state,
    pollHref: `${base}/installation`,
    issuesHref: page.href('issues'),
    keysHref: page.can('projects') ? `${base}/keys` : undefined,
    now: page.now(),
    zone: page.viewer.timeZone,
  });
}

/** A form field as text ('' when absent). */
const field = (form: URLSearchParams, name: string) => form.get(name) ?? '';

export const projectRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: /^projects$/,
    handle: (page) => listPage(page, 200),
  },
  {
    method: 'POST',
    path: /^projects$/,
    async handle(page) {
      page.require('projects');
      const form = await page.form();
      if (!form) return;
      const name = field(form, 'name');
      const slug = field(form, 'slug').trim();
      try {
        const created = await createProject(
          page.deps.metadata,
          { name, ...(slug ? { slug } : {}), organization: page.organization.slug },
          { baseUrl: page.deps.baseUrl },
        );
        page.seeOther(`${page.href('projects', created.project.slug)}?saved=created`);
      } catch (error) {
        if (!(error instanceof UserInputError || error instanceof ConflictError)) throw error;
        // The rules and messages are createProject's (shared with the CLI and create_project).
        const text =
          error instanceof ConflictError
            ? `A project with the slug "${slug || slugify(name)}" already exists: choose another name or slug.`
            : capitalize(error.message);
        await listPage(page, error instanceof ConflictError ? 409 : 400, { notice: { kind: 'error', text }, name, slug });
      }
    },
  },
  {
    method: 'GET',
    path: /^projects\/([^/]+)$/,
    handle: async (page, [slug]) => setupPage(page, await projectOf(page, slug!), 200),
  },
  {
    method: 'POST',
    path: /^projects\/([^/]+)\/name$/,
    async handle(page, [slug]) {
      page.require('projects');
      const project = await projectOf(page, slug!);
      const form = await page.form();
      if (!form) return;
      const typed = field(form, 'name');
      try {
        await renameProject(page.deps.metadata, project, typed);
      } catch (error) {
        if (!(error instanceof UserInputError)) throw error;
        return setupPage(page, project, 400, { notice: { kind: 'error', text: capitalize(error.message) }, typed });
      }
      page.seeOther(`${page.href('projects', project.slug)}?saved=renamed#name-heading`);
    },
  },
  {
    // The installation box alone, which the Set-up page polls; a plain GET goes to the page.
    method: 'GET',
    path: /^projects\/([^/]+)\/installation$/,
    async handle(page, [slug]) {
      const project = await projectOf(page, slug!);
      if (!page.partial) return page.seeOther(page.href('projects', project.slug));
      const box = installationBox(page, project, await installationState(page.deps, project, page.now()));
      page.ctx.status = 200;
      page.ctx.type = 'text/html; charset=utf-8';
      page.ctx.set('Cache-Control', 'no-store');
      page.ctx.body = renderToString(box);
    },
  },
  {
    method: 'GET',
    path: /^projects\/([^/]+)\/keys$/,
    async handle(page, [slug]) {
      page.require('projects');
      await keysPage(page, await projectOf(page, slug!), 200);
    },
  },
  {
    method: 'POST',
    path: /^projects\/([^/]+)\/keys$/,
    async handle(page, [slug]) {
      page.require('projects');
      const project = await projectOf(page, slug!);
      const form = await page.form();
      if (!form) return;
      const label = field(form, 'label');
      try {
        const key = await addProjectKey(page.deps.metadata, project, label);
        page.deps.keysChanged?.(key.publicKey);
      } catch (error) {
        if (!(error instanceof UserInputError)) throw error;
        return keysPage(page, project, 400, {
          form: 'keys',
          notice: { kind: 'error', text: capitalize(error.message) },
          typed: label,
        });
      }
      page.seeOther(`${page.href('projects', project.slug, 'keys')}?saved=key-added`);
    },
  },
  {
    method: 'POST',
    path: /^projects\/([^/]+)\/keys\/([^/]+)\/active$/,
    async handle(page, [slug, publicKey]) {
      page.require('projects');
      const project = await projectOf(page, slug!);
      const form = await page.form();
      if (!form) return;
      const active = field(form, 'active');
      if (active !== 'true' && active !== 'false') {
        throw new UserInputError(
          `"active" must be true or false, not "${active.slice(0, 20)}": use the Enable or Disable button`,
        );
      }
      await setKeyActiveIn(page.deps.metadata, project, publicKey!, active === 'true');
      page.deps.keysChanged?.(publicKey);
      page.seeOther(`${page.href('projects', project.slug, 'keys')}?saved=${active === 'true' ? 'key-enabled' : 'key-disabled'}`);
    },
  },
  {
    method: 'GET',
    path: /^projects\/([^/]+)\/delete$/,
    async handle(page, [slug]) {
      page.require('projects');
      await deletePage(page, await projectOf(page, slug!), 200);
    },
  },
  {
    method: 'POST',
    path: /^projects\/([^/]+)\/delete$/,
    async handle(page, [slug]) {
      page.require('projects');
      const project = await projectOf(page, slug!);
      const form = await page.form();
      if (!form) return;
      const typed = field(form, 'slug').trim();
      if (typed !== project.slug) {
        const text = `"${typed.slice(0, 60)}" is not this project's slug: type ${project.slug} to delete it, or Cancel.`;
        return deletePage(page, project, 400, { notice: { kind: 'error', text }, typed });
      }
      const { publicKeys } = await deleteProject(page.deps.metadata, project, page.now());
      for (const key of publicKeys) page.deps.keysChanged?.(key);
      page.deps.logger.info(
        { organization: page.organization.slug, project: project.slug, projectId: project.id, byUser: page.viewer.id },
        'project deleted',
      );
      page.seeOther(`${page.href('projects')}?saved=deleted`);
    },
  },
  {
    method: 'POST',
    path: /^projects\/([^/]+)\/rate-limit$/,
    async handle(page, [slug]) {
      page.require('projects');
      const project = await projectOf(page, slug!);
      const form = await page.form();
      if (!form) return;
      const typed = field(form, 'eventsPerMinute')
        .trim()
        .replace(/[,_\s]/g, '');
      const perMinute = typed === '' ? null : /^\d{1,12}$/.test(typed) && isRateLimit(Number(typed)) ? Number(typed) : undefined;
      if (perMinute === undefined) {
        const text = `"${typed.slice(0, 20)}" is not a number of events per minute: type a whole number from 0 to ${formatCount(MAX_RATE_LIMIT)}, or leave it empty for the default.`;
        return keysPage(page, project, 400, { form: 'rate-limit', notice: { kind: 'error', text }, typed });
      }
      for (const key of await setEventRateLimit(page.deps.metadata, project, perMinute)) page.deps.keysChanged?.(key);
      page.seeOther(
        `${page.href('projects', project.slug, 'keys')}?saved=${perMinute === null ? 'rate-limit-default' : 'rate-limit'}`,
      );
    },
  },
];

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
