// /organizations/{org}/logs: one project's structured logs, searched with the log search syntax
// over a window, newest first in pages of 50, under a histogram of the window's volume by level.
// Everything the page shows is in its address (logs/logs-filter.ts), and "Copy as search_logs
// call" gives an agent the same records.
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { Project } from '../../core/ports/tenancy-store.ts';
import { SEARCH_SCAN_RECORDS } from '../../core/ports/log-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CopyBlock } from '../components/issue/copy-panel.tsx';
import { LogTable } from '../components/logs/log-table.tsx';
import { VolumeChart, type VolumeBucket } from '../components/logs/volume-chart.tsx';
import { barHref, LOG_WINDOWS, logsParams, withTerm, type LogWindow, type LogsFilter } from '../logs/logs-filter.ts';
import { ProjectPicker } from '../components/project-picker.tsx';

interface Frame {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  href: (...segments: string[]) => string;
}

/** The histogram: counted with the page, or fetched after it from `fragmentHref`. */
export type LogsVolume =
  { kind: 'counted'; buckets: VolumeBucket[]; countedSince: number | undefined } | { kind: 'later'; fragmentHref: string };

interface LogsPageProps extends Frame {
  projects: Project[];
  project: Project;
  filter: LogsFilter;
  logs: LogRecord[];
  /** Undefined when the search was refused. */
  volume: LogsVolume | undefined;
  nextCursor: string | undefined;
  /** The search_logs call for the same records; absent when the search was refused. */
  call: string | undefined;
  /** When the search stopped after reading as many records as one page reads: the last one's time, as text. */
  searchedToText?: string | undefined;
  /** The window searched, as text (shown when a bar narrowed it). */
  windowText: string;
  /** A refused search or address, shown above the list. */
  error?: string | undefined;
}

const WINDOW_LABELS: Record<LogWindow, string> = {
  '15m': 'Last 15 minutes',
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
};

export function LogsPage(props: LogsPageProps) {
  const { filter, href, logs } = props;
  const link = (changes: Partial<LogsFilter> = {}) => `${href('logs')}?${logsParams(filter, changes)}`;
  const oldestFirst = filter.sort === 'oldest';
  const fixed = Boolean(filter.from || filter.to);
  return (
    <AppShell
      title="Logs"
      assets={props.assets}
      organization={props.organization}
      current="logs"
      viewer={props.viewer}
      csrf={props.csrf}
    >
      <div class="logs-page">
        <header class="logs-header">
          <h1>Logs</h1>
          <a href={`${href('logs', 'live')}?${new URLSearchParams({ project: props.project.slug }).toString()}`}>Live tail</a>
          <ProjectPicker action={href('logs')} projects={props.projects} chosen={props.project} />
        </header>

        <form class="logs-search" method="get" action={href('logs')} role="search">
          <input type="hidden" name="project" value={props.project.slug} />
          {filter.columns.length > 0 && <input type="hidden" name="columns" value={filter.columns.join(',')} />}
          <div class="field logs-query">
            <label for="query">Search</label>
            <input
              id="query"
              name="query"
              type="search"
              value={filter.query}
              maxLength={500}
              placeholder='level:error "payment failed" http.status_code:500 duration_ms:>250'
              aria-describedby="query-hint"
              autocomplete="off"
              spellcheck={false}
            />
          </div>
          {fixed ? (
            <>
              {filter.from && <input type="hidden" name="from" value={filter.from} />}
              {filter.to && <input type="hidden" name="to" value={filter.to} />}
            </>
          ) : (
            <div class="field">
              <label for="window">Window</label>
              <select id="window" name="window">
                {LOG_WINDOWS.map((w) => (
                  <option key={w} value={w} selected={w === filter.window}>
                    {WINDOW_LABELS[w]}
                  </option>
                ))}
              </select>
            </div>
          )}
          <div class="field">
            <label for="sort">Order</label>
            <select id="sort" name="sort">
              <option value="newest" selected={filter.sort === 'newest'}>
                Newest first
              </option>
              <option value="oldest" selected={filter.sort === 'oldest'}>
                Oldest first
              </option>
            </select>
          </div>
          <button class="button button-primary" type="submit">
            Search
          </button>
          <p id="query-hint" class="muted small logs-hint">
            <code>level:</code>, <code>trace:</code>, <code>environment:</code>, any attribute as <code>key:value</code> or{' '}
            <code>key:&gt;250</code> (also <code>&lt;</code>, <code>&gt;=</code>, <code>&lt;=</code>); other words are found
            together, in the order typed, in the message.
          </p>
        </form>

        {fixed && (
          <p class="muted small logs-window">
            {`Window: ${props.windowText}. `}
            <a href={link({ from: undefined, to: undefined })}>Back to the {WINDOW_LABELS[filter.window].toLowerCase()}</a>
          </p>
        )}

        {props.error && (
          <p class="notice notice-warning" role="alert">
            {props.error}
          </p>
        )}

        {props.volume?.kind === 'counted' && (
          <VolumeChart
            buckets={props.volume.buckets}
            countedSince={props.volume.countedSince}
            bucketHref={(bucket) => barHref(href('logs'), filter, bucket)}
            zone={props.viewer.timeZone}
          />
        )}
        {props.volume?.kind === 'later' && <PendingVolume fragmentHref={props.volume.fragmentHref} />}

        {logs.length > 0 ? (
          <LogTable
            logs={logs}
            columns={filter.columns}
            addTermHref={(key, value) => link({ query: withTerm(filter.query, key, value) })}
            columnHref={(key, shown) =>
              link({ columns: shown ? filter.columns.filter((c) => c !== key) : [...filter.columns, key], cursor: filter.cursor })
            }
            traceHref={(traceId) => href('traces', traceId)}
            zone={props.viewer.timeZone}
          />
        ) : (
          <div class="empty-state logs-empty">
            <p>
              {props.error
                ? 'Fix the search above to see logs.'
                : props.searchedToText
                  ? 'No match in the records read so far.'
                  : 'No log records match in this window. Widen the window or loosen the search; an SDK sends logs with enableLogs: true.'}
            </p>
          </div>
        )}

        {props.searchedToText && props.nextCursor && (
          <p class="muted small logs-searched" role="status">
            {`Searched the window's records ${filter.sort === 'oldest' ? 'up' : 'back'} to ${props.searchedToText} and stopped: a page reads at most ${SEARCH_SCAN_RECORDS.toLocaleString('en-US')} records. `}
            <a href={link({ cursor: props.nextCursor })}>Search on</a>
          </p>
        )}

        {/* Paging follows the sort: oldest first, the next page holds newer records. */}
        <nav class="paging" aria-label="Pages">
          <span class="muted">{logs.length === 0 ? '' : `${logs.length} shown`}</span>
          <span class="paging-links">
            {filter.cursor && (
              <a class="button button-small" href={link()}>
                {oldestFirst ? 'Oldest' : 'Newest'}
              </a>
            )}
            {props.nextCursor && (
              <a class="button button-small" href={link({ cursor: props.nextCursor })} rel="next">
                {oldestFirst ? 'Newer' : 'Older'}
              </a>
            )}
          </span>
        </nav>

        {props.call && (
          <section class="logs-copy" aria-label="For an agent">
            <CopyBlock label="Copy as search_logs call" text={props.call} />
          </section>
        )}
      </div>
    </AppShell>
  );
}

/**
 * Where the histogram of a search by text or attributes will be: htmx fetches it once the page
 * has loaded and puts it here; without JavaScript, a link opens the page with it counted.
 */
function PendingVolume({ fragmentHref }: { fragmentHref: string }) {
  return (
    <section
      class="logs-volume logs-volume-pending"
      aria-labelledby="volume-heading"
      hx-get={fragmentHref}
      hx-trigger="load"
      hx-swap="outerHTML"
    >
      <h2 id="volume-heading" class="visually-hidden">
        Volume
      </h2>
      <p class="muted small">
        <span class="js-only">Counting this search's records over the window…</span>
        <noscript>
          <a href={fragmentHref}>Count this search's records over the window</a>
        </noscript>
      </p>
    </section>
  );
}
