// A project's Releases tab (/organizations/{org}/projects/{slug}/releases): every release its
// events came with, newest first, with when it was first and last seen, the events counted with
// it, the issues first seen in it and the issues that last regressed in it. Each version links
// to its release page.
import type { Release, ReleaseCounts } from '../../core/ports/issue-store.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { formatCount } from '../components/formats.ts';
import { RelativeTime } from '../components/time.tsx';
import { ProjectHeader } from './project-parts.tsx';

interface ReleasesPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  project: Project;
  /** The newest releases shown, with their counts. */
  releases: Array<{ release: Release; counts: ReleaseCounts }>;
  /** How many releases the project has in all (more than shown when the list is cut). */
  total: number;
  canManage: boolean;
  href: (...segments: string[]) => string;
  now: Date;
}

export function ReleasesPage(props: ReleasesPageProps) {
  const { assets, csrf, viewer, organization, project, releases, total, canManage, href, now } = props;
  const zone = viewer.timeZone;
  return (
    <AppShell
      title={`Releases · ${project.name}`}
      assets={assets}
      organization={organization}
      current="projects"
      viewer={viewer}
      csrf={csrf}
    >
      <div class="project releases-page">
        <ProjectHeader
          project={project}
          projectsHref={href('projects')}
          issuesHref={href('issues')}
          current="releases"
          showKeys={canManage}
        />
        {releases.length === 0 ? (
          <div class="empty-state">
            <h2>No releases yet</h2>
            <p>
              A release appears here with the first event that names one: set <code>release</code> in the SDK's options (often{' '}
              <code>package@version</code>).
            </p>
          </div>
        ) : (
          <>
            {total > releases.length && (
              <p class="hint">{`The ${formatCount(releases.length)} newest of ${formatCount(total)} releases.`}</p>
            )}
            <div class="table-scroll">
              <table class="table releases-table">
                <caption class="visually-hidden">Releases of {project.name}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Version</th>
                    <th scope="col">First seen</th>
                    <th scope="col">Last seen</th>
                    <th scope="col" class="releases-number">
                      Events
                    </th>
                    <th scope="col" class="releases-number">
                      New issues
                    </th>
                    <th scope="col" class="releases-number">
                      Regressions
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {releases.map(({ release, counts }) => (
                    <tr key={release.version}>
                      <td class="release-version">
                        <a href={href('projects', project.slug, 'releases', release.version)}>{release.version}</a>
                      </td>
                      <td class="releases-time">
                        <RelativeTime date={release.firstSeen} now={now} zone={zone} />
                      </td>
                      <td class="releases-time">
                        <RelativeTime date={release.lastSeen} now={now} zone={zone} />
                      </td>
                      <td class="releases-number">{formatCount(counts.events)}</td>
                      <td class="releases-number">{formatCount(counts.newIssues)}</td>
                      <td class="releases-number">{formatCount(counts.regressions)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </div>
    </AppShell>
  );
}
