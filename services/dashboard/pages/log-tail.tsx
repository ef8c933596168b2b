// The live tail (/organizations/{org}/logs/live): a project's log records as they arrive, newest
// at the bottom as in `tail -f`. The filters are a plain GET form; the rows come from the stream
// (/logs/live/stream) through assets/log-tail.ts, which shows the tail's box. Without JavaScript
// the box stays hidden and the page points to the Logs page, which searches the same records.
import { LOG_LEVELS, type LogLevel } from '../../core/logs/log-record.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import type { TailFilter } from '../logs/tail-filter.ts';

interface LogTailPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  projects: Project[];
  project: Project;
  filter: TailFilter;
  /** The stream's address for this filter. */
  streamHref: string;
  logsHref: string;
  /** Rows the page keeps; older ones leave the top. */
  maxRows: number;
  maxMinutes: number;
  maxPerSecond: number;
}

export function LogTailPage(props: LogTailPageProps) {
  const { assets, csrf, viewer, organization, projects, project, filter, streamHref, logsHref } = props;
  return (
    <AppShell title={`Live tail · ${project.name}`} assets={assets} organization={organization} viewer={viewer} csrf={csrf}>
      <div class="log-tail-page">
        <header class="log-tail-header">
          <h1>Live tail</h1>
          <a href={logsHref}>Search logs</a>
        </header>
        <TailFilters projects={projects} project={project} filter={filter} />
        <noscript>
          <p class="notice notice-warning">
            Live tail needs JavaScript: it shows records as they arrive. <a href={logsHref}>The Logs page</a> searches the same
            records without it.
          </p>
        </noscript>
        <section
          class="log-tail"
          aria-label="Live log records"
          data-log-tail={streamHref}
          data-zone={viewer.timeZone ?? ''}
          data-max-rows={String(props.maxRows)}
          hidden
        >
          <div class="log-tail-bar">
            <p class="log-tail-status" role="status" aria-live="polite">
              Connecting…
            </p>
            <button type="button" class="button log-tail-action" data-state="running">
              Stop
            </button>
          </div>
          <ol class="log-tail-rows" aria-label="Records, oldest first" tabIndex={0} />
          <p class="hint">
            {`Newest at the bottom; the page keeps the last ${props.maxRows}. The tail pauses above ${props.maxPerSecond} records a second over 10 seconds and stops after ${props.maxMinutes} minutes.`}
          </p>
        </section>
      </div>
    </AppShell>
  );
}

function TailFilters({ projects, project, filter }: { projects: Project[]; project: Project; filter: TailFilter }) {
  const chosen = (level: LogLevel) => filter.levels.includes(level);
  return (
    <form class="log-tail-filters" method="get">
      <div class="field">
        <label for="tail-project">Project</label>
        <select id="tail-project" name="project">
          {projects.map((p) => (
            <option key={p.slug} value={p.slug} selected={p.id === project.id}>
              {p.name}
            </option>
          ))}
        </select>
      </div>
      <fieldset class="choice-group log-tail-levels">
        <legend>Levels (none: all)</legend>
        {LOG_LEVELS.map((level) => (
          <label key={level} class="choice">
            <input type="checkbox" name="level" value={level} checked={chosen(level)} />
            {level}
          </label>
        ))}
      </fieldset>
      <div class="field log-tail-text">
        <label for="tail-text">Text in the message</label>
        <input id="tail-text" name="q" type="search" maxLength={200} value={filter.text} />
      </div>
      <div class="field log-tail-trace">
        <label for="tail-trace">Trace id</label>
        <input id="tail-trace" name="trace" type="text" maxLength={32} spellcheck={false} value={filter.traceId} />
      </div>
      <button type="submit" class="button button-primary">
        Tail
      </button>
    </form>
  );
}
