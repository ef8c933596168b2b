// A project's Set-up page (/organizations/{org}/projects/{slug}, where alerts link): its DSN
// with a copy button (for people who may read DSNs; others see where an admin finds it), the
// live installation state, and the SDK snippets of the install guides
// (mcp/bootstrap/install-guide.ts: the same steps the agent-facing guides serve), one platform
// at a time, chosen by plain links; for people who may manage projects, its name and the way to
// delete it.
import type { Project } from '../../core/ports/metadata-store.ts';
import type { InstallationState } from '../../core/projects/installation-state.ts';
import type { User } from '../../core/ports/user-store.ts';
import { GUIDE_PLATFORMS, installSteps } from '../../core/projects/install-guide.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { Installation } from './project-installation.tsx';
import { CopyBox, Notice, ProjectHeader, type FormNotice } from './project-parts.tsx';

type GuidePlatform = (typeof GUIDE_PLATFORMS)[number]['name'];

interface ProjectPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  project: Project;
  /** The first active key's DSN; undefined when the viewer may not read it or no key is active. */
  dsn: string | undefined;
  canManage: boolean;
  platform: GuidePlatform;
  installation: InstallationState;
  href: (...segments: string[]) => string;
  now: Date;
  notice?: FormNotice | undefined;
  /** What the rename form answered (saved, or refused), shown by the form. */
  nameNotice?: FormNotice | undefined;
  /** A refused rename's typed name, kept in its field. */
  typedName?: string | undefined;
  /** For people who may manage alerts: the project's Alert rules page. */
  alertRulesHref?: string | undefined;
}

/** What the snippets hold where the DSN goes, for a person who may not read it. */
const DSN_PLACEHOLDER = '<DSN of this project: an admin or owner sees it on this page>';

export function ProjectPage(props: ProjectPageProps) {
  const { assets, csrf, viewer, organization, project, dsn, canManage, platform, installation, href, now, notice, nameNotice, typedName, alertRulesHref } = props;
  const base = href('projects', project.slug);
  const steps = installSteps(platform, dsn ?? DSN_PLACEHOLDER);
  return (
    <AppShell title={`${project.name} · Projects`} assets={assets} organization={organization} current="projects" viewer={viewer} csrf={csrf}>
      <div class="project">
        <ProjectHeader project={project} projectsHref={href('projects')} issuesHref={href('issues')} current="overview" showKeys={canManage} />
        <Notice notice={notice} />
        <div class="installation-live" aria-live="polite">
          <Installation
            state={installation}
            pollHref={`${base}/installation`}
            issuesHref={href('issues')}
            keysHref={canManage ? `${base}/keys` : undefined}
            now={now}
            zone={viewer.timeZone}
          />
        </div>

        <section class="project-section" aria-labelledby="dsn-heading">
          <h2 id="dsn-heading">DSN</h2>
          {dsn ? (
            <>
              <p class="hint">The one setting an SDK needs. It is not a secret: browser bundles ship it.</p>
              <CopyBox id="dsn" text={dsn} what="the DSN" />
            </>
          ) : canManage ? (
            <p class="notice notice-warning">
              No key of this project is active, so it has no DSN to use. <a href={`${base}/keys`}>Enable or add a key</a>.
            </p>
          ) : (
            <p class="notice">Reading a DSN needs the admin or owner role; an admin or owner sees it on this page.</p>
          )}
        </section>

        <section class="project-section" aria-labelledby="sdk-heading">
          <h2 id="sdk-heading">Set up the SDK</h2>
          <p class="hint">
            The official Sentry SDK works unchanged. Agents read the same steps from the install guide at{' '}
            <code>{`/api/v1/organizations/${organization}/projects/${project.slug}/install/${platform}.md`}</code>.
          </p>
          <nav class="tabs platform-tabs" aria-label="Platform">
            {GUIDE_PLATFORMS.map((guide) => (
              <a key={guide.name} class="tab" href={`${base}?platform=${guide.name}`} aria-current={guide.name === platform ? 'page' : undefined}>
                {guide.title}
              </a>
            ))}
          </nav>
          <ol class="steps">
            {steps.map((step, index) => (
              <li key={step.heading} class="step">
                <h3>{step.heading}</h3>
                <CopyBox id={`step-${index}`} text={step.code} what={`the ${step.heading.split(' (')[0]!.toLowerCase()} code`} multiline />
                {step.note && <p class="hint">{withCode(step.note)}</p>}
              </li>
            ))}
          </ol>
        </section>

        {alertRulesHref && (
          <section class="project-section" aria-labelledby="alerts-heading">
            <h2 id="alerts-heading">Alerts</h2>
            <p class="hint">
              <a href={alertRulesHref}>Alert rules</a> send this project's new issues, regressions and spikes to your webhook channels.
            </p>
          </section>
        )}

        {canManage && (
          <section class="project-section" aria-labelledby="name-heading">
            <h2 id="name-heading">Name</h2>
            <Notice notice={nameNotice} />
            <form class="inline-form" method="post" action={`${base}/name#name-heading`}>
              <CsrfField token={csrf} />
              <div class="field">
                <label for="project-name">Project name</label>
                <input id="project-name" name="name" type="text" required maxLength={100} value={typedName ?? project.name} />
              </div>
              <button class="button" type="submit">
                Rename
              </button>
              <p class="hint inline-form-hint">
                The slug, <code>{project.slug}</code>, stays: issue ids, links, the API and sentry-cli's <code>SENTRY_PROJECT</code> use it.
              </p>
            </form>
          </section>
        )}

        {canManage && (
          <section class="project-section project-danger" aria-labelledby="delete-heading">
            <h2 id="delete-heading">Delete the project</h2>
            <p class="hint">Its issues, events, logs, source maps, keys and rules go for good; the next page says what and asks you to confirm.</p>
            <a class="button button-danger" href={`${base}/delete`}>
              Delete project…
            </a>
          </section>
        )}
      </div>
    </AppShell>
  );
}

/** A guide's note: `backticked` parts as code, the rest as text. */
function withCode(text: string) {
  return text
    .replace(/\n/g, ' ')
    .split('`')
    .map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part));
}
