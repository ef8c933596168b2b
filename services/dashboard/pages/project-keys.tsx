// A project's DSN keys tab (/organizations/{org}/projects/{slug}/keys), for people with the
// `projects` capability: each key's label, public key, DSN (copyable), state and age, a button
// that disables or enables it (a disabled key's events are refused with 403), a form that adds
// a key, and the project's event rate limit (empty: the instance default, which is shown).
import type { Project, ProjectKey } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { RelativeTime } from '../components/time.tsx';
import { CopyBox, Notice, ProjectHeader, type FormNotice } from './project-parts.tsx';

interface ProjectKeysPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  project: Project;
  keys: Array<ProjectKey & { dsn: string }>;
  defaultEventsPerMinute: number;
  href: (...segments: string[]) => string;
  now: Date;
  /** The form the notice answers, shown beside it; a refused form keeps what was typed. */
  notice?: { form: 'keys' | 'rate-limit'; notice: FormNotice; typed?: string } | undefined;
}

const count = new Intl.NumberFormat('en-US');

export function ProjectKeysPage(props: ProjectKeysPageProps) {
  const { assets, csrf, viewer, organization, project, keys, defaultEventsPerMinute, href, now, notice } = props;
  const base = href('projects', project.slug, 'keys');
  const own = project.rateLimitPerMinute;
  const noticeFor = (form: 'keys' | 'rate-limit') => (notice?.form === form ? notice : undefined);
  return (
    <AppShell title={`DSN keys · ${project.name}`} assets={assets} organization={organization} current="projects" viewer={viewer} csrf={csrf}>
      <div class="project">
        <ProjectHeader project={project} projectsHref={href('projects')} issuesHref={href('issues')} current="keys" showKeys />

        <section class="project-section" aria-labelledby="keys-heading">
          <h2 id="keys-heading">DSN keys</h2>
          <p class="hint">
            Each key is a DSN of this project. A disabled key's events are refused (403), so an app can be cut off without
            touching the others.
          </p>
          <Notice notice={noticeFor('keys')?.notice} />
          <ul class="key-list">
            {keys.map((key, index) => (
              <li key={key.publicKey} class={key.active ? 'key-card' : 'key-card key-card-disabled'}>
                <div class="key-card-top">
                  <h3 class="key-label">{key.label}</h3>
                  <span class={key.active ? 'badge badge-active' : 'badge badge-disabled'}>{key.active ? 'Active' : 'Disabled'}</span>
                  <form class="key-toggle" method="post" action={`${base}/${encodeURIComponent(key.publicKey)}/active`}>
                    <CsrfField token={csrf} />
                    <input type="hidden" name="active" value={key.active ? 'false' : 'true'} />
                    <button class="button button-small" type="submit">
                      {key.active ? 'Disable' : 'Enable'}
                      <span class="visually-hidden">{` the key ${key.label}`}</span>
                    </button>
                  </form>
                </div>
                <CopyBox id={`dsn-${index}`} text={key.dsn} what={`the DSN of ${key.label}`} />
                <p class="key-meta muted">
                  Public key <code>{key.publicKey}</code> · created <RelativeTime date={key.createdAt} now={now} zone={viewer.timeZone} />
                </p>
              </li>
            ))}
          </ul>
          <form class="inline-form" method="post" action={base}>
            <CsrfField token={csrf} />
            <div class="field">
              <label for="key-label">New key's label</label>
              <input
                id="key-label"
                name="label"
                type="text"
                required
                maxLength={100}
                placeholder="Mobile app"
                value={noticeFor('keys')?.typed ?? ''}
              />
            </div>
            <button class="button button-primary" type="submit">
              Add key
            </button>
          </form>
        </section>

        <section class="project-section" aria-labelledby="rate-heading">
          <h2 id="rate-heading">Rate limit</h2>
          <p class="rate-now">
            {own === null ? (
              <>
                <strong>{count.format(defaultEventsPerMinute)}</strong> events per minute: the instance default
                (ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE).
              </>
            ) : (
              <>
                <strong>{count.format(own)}</strong> events per minute, set for this project
                {own === 0 ? ': every event is refused' : ''} (the instance default is {count.format(defaultEventsPerMinute)}).
              </>
            )}
          </p>
          <Notice notice={noticeFor('rate-limit')?.notice} />
          <form class="inline-form" method="post" action={href('projects', project.slug, 'rate-limit')}>
            <CsrfField token={csrf} />
            <div class="field">
              <label for="events-per-minute">Events per minute</label>
              <input
                id="events-per-minute"
                name="eventsPerMinute"
                type="text"
                inputMode="numeric"
                placeholder={`${defaultEventsPerMinute} (default)`}
                aria-describedby="events-per-minute-hint"
                value={noticeFor('rate-limit')?.typed ?? (own === null ? '' : String(own))}
              />
            </div>
            <button class="button button-primary" type="submit">
              Save limit
            </button>
            <p id="events-per-minute-hint" class="hint inline-form-hint">
              Beyond it, ingest answers 429 until the minute is over. Leave it empty for the instance default.
            </p>
          </form>
        </section>
      </div>
    </AppShell>
  );
}
