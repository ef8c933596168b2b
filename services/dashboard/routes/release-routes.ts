// A project's Releases pages: the list (.../projects/{slug}/releases) and one release
// (.../releases/{version}, where the new_release alert links: core/alerts/alert-payload.ts).
// Reading needs only the `read` capability. The issues a release page lists are the ones
// whats_new reports for a release (first release, regression release) and the ones whose
// resolution marker names it, read with the issue list's store queries.
import { h } from 'preact';
import { NotFoundError } from '../../core/errors.ts';
import type { IssueQuery } from '../../core/ports/issue-store.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { ReleasePage, type IssueGroup } from '../pages/release.tsx';
import { ReleasesPage } from '../pages/releases.tsx';

/** Releases the list shows, newest first: a project sending a release per deploy keeps a long tail. */
const MAX_RELEASES = 100;
/** Issues each section of a release page shows, most recently seen first. */
const MAX_ISSUES = 50;

async function projectOf(page: OrganizationPage, slug: string): Promise<Project> {
  const project = await page.deps.metadata.findProject(page.organization.id, slug);
  if (!project) throw new NotFoundError(`no project "${slug}" in ${page.organization.slug}: the Projects page lists them`);
  return project;
}

/** Up to MAX_ISSUES issues of the project matching the filter, in any status, and how many match. */
async function issueGroup(
  page: OrganizationPage,
  filter: Omit<IssueQuery, 'projectId' | 'status'> & { projectId: number },
): Promise<IssueGroup> {
  const query = { ...filter, status: 'all' as const };
  const [found, total] = await Promise.all([
    page.deps.metadata.listIssues({ ...query, limit: MAX_ISSUES }),
    page.deps.metadata.countIssues(query),
  ]);
  return { issues: found.items, total };
}

export const releaseRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: /^projects\/([^/]+)\/releases$/,
    async handle(page, [slug]) {
      page.require('read');
      const project = await projectOf(page, slug!);
      const [shown, total] = await Promise.all([
        page.deps.metadata.listReleases(project.id, MAX_RELEASES),
        page.deps.metadata.countReleases(project.id),
      ]);
      const counts = await page.deps.metadata.releaseCounts(
        project.id,
        shown.map((r) => r.version),
      );
      page.send(
        200,
        h(ReleasesPage, {
          assets: page.assets,
          csrf: page.csrf,
          viewer: page.viewer,
          organization: page.organization.slug,
          project,
          releases: shown.map((release) => ({ release, counts: counts.get(release.version)! })),
          total,
          canManage: page.can('projects'),
          href: page.href,
          now: page.now(),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: /^projects\/([^/]+)\/releases\/([^/]+)$/,
    async handle(page, [slug, version]) {
      page.require('read');
      const project = await projectOf(page, slug!);
      const release = await page.deps.metadata.findRelease(project.id, version!);
      if (!release) {
        throw new NotFoundError(
          `project ${project.slug} has seen no release "${version!.slice(0, 200)}": its Releases page lists the ones events came with`,
        );
      }
      const projectId = project.id;
      const [counts, fresh, regressed, resolved] = await Promise.all([
        page.deps.metadata.releaseCounts(projectId, [release.version]),
        issueGroup(page, { projectId, firstRelease: release.version }),
        issueGroup(page, { projectId, regressionRelease: release.version }),
        issueGroup(page, { projectId, resolvedInRelease: release.version }),
      ]);
      page.send(
        200,
        h(ReleasePage, {
          assets: page.assets,
          csrf: page.csrf,
          viewer: page.viewer,
          organization: page.organization.slug,
          project,
          release,
          counts: counts.get(release.version)!,
          fresh,
          regressed,
          resolved,
          href: page.href,
          now: page.now(),
        }),
      );
    },
  },
];
