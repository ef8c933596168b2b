// The Projects page (/organizations/{org}/projects): every project with its slug, age, events
// of the last 24 hours and a link to its issues; people who may create projects (the `projects`
// capability) also get the form that creates one, which leads to the new project's DSN.
import type { Project } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { RelativeTime } from '../components/time.tsx';
import { Notice, type FormNotice } from './project-parts.tsx';

interface ProjectsPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  projects: Array<{ project: Project; eventsLastDay: number }>;
  canCreate: boolean;
  href: (...segments: string[]) => string;
  now: Date;
  /** A refused creation: the reason, and what was typed, kept in the form. */
  refused?: { notice: FormNotice; name: string; slug: string } | undefined;
  /** What a form that led here did (a project deleted). */
  notice?: FormNotice | undefined;
}

const count = new Intl.NumberFormat('en-US');

export function ProjectsPage(props: ProjectsPageProps) {
  const { assets, csrf, viewer, organization, projects, canCreate, href, now, refused, notice } = props;
  return (
    <AppShell title="Projects" assets={assets} organization={organization} current="projects" viewer={viewer} csrf={csrf}>
      <div class="projects">
        <h1>Projects</h1>
        <Notice notice={notice} />
        {canCreate && (
          <section class="project-create" aria-labelledby="create-heading">
            <h2 id="create-heading">Create a project</h2>
            <Notice notice={refused?.notice} />
            <form class="project-create-form" method="post" action={href('projects')}>
              <CsrfField token={csrf} />
              <div class="field">
                <label for="project-name">Name</label>
                <input id="project-name" name="name" type="text" required maxLength={100} placeholder="Web App" value={refused?.name ?? ''} />
              </div>
              <div class="field">
                <label for="project-slug">
                  Slug <span class="muted">(optional)</span>
                </label>
                <input
                  id="project-slug"
                  name="slug"
                  type="text"
                  maxLength={50}
                  placeholder="web-app"
                  aria-describedby="project-slug-hint"
                  value={refused?.slug ?? ''}
                />
              </div>
              <button class="button button-primary" type="submit">
                Create project
              </button>
              <p id="project-slug-hint" class="hint project-create-hint">
                The slug names the project in URLs, issue ids and the API: lowercase letters, digits, "-" and "_". Left empty, it
                comes from the name.
              </p>
            </form>
          </section>
        )}
        {projects.length === 0 ? (
          <div class="empty-state">
            <h2>No projects yet</h2>
            <p class="muted">
              {canCreate
                ? 'Create one above: it gets a DSN to point a Sentry SDK at.'
                : 'An admin or owner creates projects here or with errata createproject.'}
            </p>
          </div>
        ) : (
          <div class="table-scroll">
            <table class="table projects-table">
              <thead>
                <tr>
                  <th scope="col">Project</th>
                  <th scope="col">Created</th>
                  <th scope="col" class="numeric">
                    Events, 24 h
                  </th>
                  <th scope="col">
                    <span class="visually-hidden">Issues</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {projects.map(({ project, eventsLastDay }) => (
                  <tr key={project.id}>
                    <td>
                      <a class="project-name" href={href('projects', project.slug)}>
                        {project.name}
                      </a>
                      <div class="project-slug muted">{project.slug}</div>
                    </td>
                    <td>
                      <RelativeTime date={project.createdAt} now={now} zone={viewer.timeZone} />
                    </td>
                    <td class="numeric">{count.format(eventsLastDay)}</td>
                    <td class="row-link">
                      <a href={`${href('issues')}?project=${encodeURIComponent(project.slug)}`}>
                        Issues<span class="visually-hidden">{` of ${project.name}`}</span>
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </AppShell>
  );
}
