// /organizations/{org}/traces/{traceId}: a trace's errors and logs in time order, one list.
// Errors link to their issue; every log body and event title is captured text, escaped.
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { StoredEvent } from '../../core/ports/event-store.ts';
import type { Issue } from '../../core/ports/issue-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { formatDate, formatQuantity } from '../components/formats.ts';

export type TraceItem =
  | { kind: 'error'; event: StoredEvent; issue: Issue | undefined; project: string }
  | { kind: 'log'; log: LogRecord; project: string };

interface TracePageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  href: (...segments: string[]) => string;
  traceId: string;
  items: TraceItem[];
  /** True when a limit cut the list short. */
  truncated: boolean;
  /** Whether to name each item's project (an organization with one project need not). */
  multipleProjects: boolean;
}

export function TracePage({ assets, csrf, viewer, organization, href, traceId, items, truncated, multipleProjects }: TracePageProps) {
  const first = items[0];
  const start = first ? (first.kind === 'error' ? first.event.timestamp : first.log.timestamp) : 0;
  const errors = items.filter((i) => i.kind === 'error').length;
  return (
    <AppShell title={`Trace ${traceId}`} assets={assets} organization={organization} current="logs" viewer={viewer} csrf={csrf}>
      <div class="trace-page">
        <header>
          <p class="muted small trace-crumbs">
            <a href={href('logs')}>Logs</a> / Trace
          </p>
          <h1>
            Trace <code class="trace-id">{traceId}</code>
          </h1>
          <p class="muted">
            {`${formatQuantity(errors, 'error')} and ${formatQuantity(items.length - errors, 'log record')}, oldest first.`}
            {truncated && ' Only the first 200 of each are shown.'}
          </p>
        </header>
        {items.length === 0 ? (
          <div class="empty-state">
            <p>Nothing with this trace id is stored: it may be older than retention keeps, or sent to another organization.</p>
          </div>
        ) : (
          <ol class="trace-timeline">
            {items.map((item) => {
              const at = item.kind === 'error' ? item.event.timestamp : item.log.timestamp;
              const level = item.kind === 'error' ? item.event.level : item.log.level;
              return (
                <li key={item.kind === 'error' ? `e${item.event.eventId}` : `l${item.log.id}`} class={`trace-item trace-${item.kind} log-level-${level}`}>
                  <span class="trace-offset" title={exact(at, viewer.timeZone)}>
                    {`+${formatOffset(at - start)}`}
                  </span>
                  <span class="trace-kind">{item.kind === 'error' ? 'Error' : 'Log'}</span>
                  <span class="level-badge">{level}</span>
                  <span class="trace-text">
                    {item.kind === 'error' ? (
                      item.issue ? (
                        <a href={href('issues', item.issue.shortId)}>
                          <span class="trace-short-id">{item.issue.shortId}</span> {item.event.title}
                        </a>
                      ) : (
                        item.event.title
                      )
                    ) : (
                      item.log.body
                    )}
                  </span>
                  {multipleProjects && <span class="muted small trace-project">{item.project}</span>}
                </li>
              );
            })}
          </ol>
        )}
      </div>
    </AppShell>
  );
}

function formatOffset(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 120) return `${seconds.toFixed(2)} s`;
  return `${Math.round(seconds / 60)} min`;
}

function exact(seconds: number, zone: string | null): string {
  return (
    formatDate(new Date(seconds * 1000), {
      dateStyle: 'medium',
      timeStyle: 'medium',
      timeZone: zone ?? 'UTC',
    }) + (zone ? '' : ' UTC')
  );
}
