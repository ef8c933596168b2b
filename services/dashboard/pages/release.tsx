// One release's page (/organizations/{org}/projects/{slug}/releases/{version}, where the
// new_release alert links): when it was first and last seen with its counts, then the issues
// whats_new reports for it (first seen in it, last regressed in it) and the issues whose
// resolution marker names it, each marker with who resolved, when, and their commit and note.
import type { Issue, Release, ReleaseCounts } from '../../core/ports/issue-store.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { formatCount } from '../components/formats.ts';
import { RelativeTime } from '../components/time.tsx';

/** Up to `limit` issues of one kind, and how many there are in all. */
export interface IssueGroup {
  issues: Issue[];
  total: number;
}

interface ReleasePageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  project: Project;
  release: Release;
  counts: ReleaseCounts;
  fresh: IssueGroup;
  regressed: IssueGroup;
  resolved: IssueGroup;
  href: (...segments: string[]) => string;
  now: Date;
}

export function ReleasePage(props: ReleasePageProps) {
  const { assets, csrf, viewer, organization, project, release, counts, fresh, regressed, resolved, href, now } = props;
  const zone = viewer.timeZone;
  const releasesHref = href('projects', project.slug, 'releases');
  const row = { href, now, zone };
  return (
    <AppShell
      title={`${release.version} · Releases`}
      assets={assets}
      organization={organization}
      current="projects"
      viewer={viewer}
      csrf={csrf}
    >
      <div class="release-page">
        <header class="release-header">
          <nav class="breadcrumb" aria-label="Breadcrumb">
            <a href={href('projects')}>Projects</a>
            <span aria-hidden="true"> / </span>
            <a href={href('projects', project.slug)}>{project.slug}</a>
            <span aria-hidden="true"> / </span>
            <a href={releasesHref}>Releases</a>
          </nav>
          <h1>
            Release <span class="release-name">{release.version}</span>
          </h1>
        </header>
        <dl class="facts release-facts">
          <dt>First seen</dt>
          <dd>
            <RelativeTime date={release.firstSeen} now={now} zone={zone} />
          </dd>
          <dt>Last seen</dt>
          <dd>
            <RelativeTime date={release.lastSeen} now={now} zone={zone} />
          </dd>
          <dt>Events</dt>
          <dd>{formatCount(counts.events)}</dd>
        </dl>

        <IssueSection
          id="new"
          title="New in this release"
          empty="No issue was first seen in this release."
          group={fresh}
          // The Issues page filters by first release: there they can be searched and triaged together.
          issuesHref={`${href('issues')}?${new URLSearchParams({ project: project.slug, status: 'all', release: release.version })}`}
          {...row}
        />
        <IssueSection
          id="regressed"
          title="Regressed in this release"
          empty="No resolved issue came back with this release."
          group={regressed}
          {...row}
        />
        <IssueSection
          id="resolved"
          title="Resolved in this release"
          empty="No resolve names this release."
          group={resolved}
          markers
          {...row}
        />
      </div>
    </AppShell>
  );
}

interface IssueSectionProps {
  id: string;
  title: string;
  empty: string;
  group: IssueGroup;
  /** Shows each issue's resolution marker (the resolved-in list). */
  markers?: boolean;
  /** The same issues on the Issues page, where they can be triaged together. */
  issuesHref?: string;
  href: (...segments: string[]) => string;
  now: Date;
  zone: string | null;
}

function IssueSection({ id, title, empty, group, markers, issuesHref, href, now, zone }: IssueSectionProps) {
  const { issues, total } = group;
  return (
    <section class="release-section" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>
        {title} <span class="release-count">{formatCount(total)}</span>
      </h2>
      {issues.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <>
          {(total > issues.length || issuesHref) && (
            <p class="hint">
              {total > issues.length && `The ${formatCount(issues.length)} most recently seen of ${formatCount(total)}. `}
              {issuesHref && <a href={issuesHref}>Triage them on the Issues page</a>}
            </p>
          )}
          <div class="table-scroll">
            <table class="table release-issues">
              <caption class="visually-hidden">{title}</caption>
              <thead>
                <tr>
                  <th scope="col">Issue</th>
                  {markers && <th scope="col">Resolution</th>}
                  <th scope="col" class="releases-number">
                    Events
                  </th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {issues.map((issue) => (
                  <tr key={issue.id} class={`issue-row level-${issue.level}`}>
                    <td class="release-issue">
                      <a href={href('issues', issue.shortId)}>{issue.title}</a>
                      <div class="release-issue-meta">
                        <span class={`level-badge level-badge-${issue.level}`}>{issue.level}</span>
                        <span class="release-short-id">{issue.shortId}</span>
                        <span>{issue.status}</span>
                      </div>
                    </td>
                    {markers && (
                      <td class="release-marker">{issue.resolution && <Marker issue={issue} now={now} zone={zone} />}</td>
                    )}
                    <td class="releases-number">{formatCount(issue.count)}</td>
                    <td class="releases-time">
                      <RelativeTime date={issue.lastSeen} now={now} zone={zone} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** Who resolved the issue naming the release, when, and the commit and note they gave. */
function Marker({ issue, now, zone }: { issue: Issue; now: Date; zone: string | null }) {
  const marker = issue.resolution!;
  return (
    <>
      <div>
        {`by ${marker.by}${marker.byKind === 'agent' ? ' (agent)' : ''}, `}
        <RelativeTime date={new Date(marker.resolvedAt)} now={now} zone={zone} />
      </div>
      {marker.commit && (
        <div>
          commit <code>{marker.commit}</code>
        </div>
      )}
      {marker.note && <div class="release-note">{marker.note}</div>}
      {issue.status !== 'resolved' && <div class="muted">came back after this resolve</div>}
    </>
  );
}
