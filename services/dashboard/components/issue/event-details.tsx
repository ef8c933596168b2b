// The parts of an event beside its stack trace: breadcrumbs, the request, the user, contexts
// (browser, os, runtime, ...), the logs of its trace and the raw JSON. Every value is text the
// SDK sent: preact escapes it, and nothing here renders markup from it.
import type { NormalizedEvent } from '../../../core/event/event.ts';
import { withinDateRange } from '../../../core/event/timestamp.ts';
import type { LogRecord } from '../../../core/logs/log-record.ts';
import { RelativeTime } from '../time.tsx';

interface Clock {
  now: Date;
  zone: string | null;
}

export function Breadcrumbs({ payload, clock }: { payload: NormalizedEvent; clock: Clock }) {
  const crumbs = [...(payload.breadcrumbs?.values ?? [])].reverse();
  return (
    <section class="issue-card" aria-labelledby="breadcrumbs-heading">
      <h2 id="breadcrumbs-heading">Breadcrumbs</h2>
      {crumbs.length === 0 ? (
        <p class="muted">No breadcrumbs came with this event.</p>
      ) : (
        <div class="table-scroll" tabIndex={0}>
          <table class="table table-compact">
            <caption class="visually-hidden">Breadcrumbs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Category</th>
                <th scope="col">Level</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {crumbs.map((crumb, i) => (
                <tr key={i}>
                  <td class="nowrap">
                    {crumb.timestamp === undefined || !withinDateRange(crumb.timestamp) ? (
                      ''
                    ) : (
                      <RelativeTime date={new Date(crumb.timestamp * 1000)} now={clock.now} zone={clock.zone} />
                    )}
                  </td>
                  <td class="breadcrumb-category">{crumb.category ?? crumb.type}</td>
                  <td>
                    <span class={`level level-${crumb.level}`}>{crumb.level}</span>
                  </td>
                  <td class="breadcrumb-message">{crumb.message ?? (crumb.data === undefined ? '' : compactJson(crumb.data))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function RequestAndUser({ payload }: { payload: NormalizedEvent }) {
  const request = payload.request;
  const user = payload.user;
  if (!request && !user) return null;
  const headers = request && isRecord(request.headers) ? Object.entries(request.headers) : [];
  return (
    <section class="issue-card" aria-labelledby="request-heading">
      <h2 id="request-heading">{request && user ? 'Request and user' : request ? 'Request' : 'User'}</h2>
      {request && (
        <>
          <p class="request-line">
            <span class="badge">{String(request.method ?? 'GET')}</span> <code>{String(request.url ?? '')}</code>
          </p>
          {headers.length > 0 && <KeyValues label="Request headers" entries={headers} />}
        </>
      )}
      {user && <KeyValues label="User" entries={Object.entries(user)} />}
    </section>
  );
}

// Sentry's titles for the contexts SDKs send; another context shows under its own key.
const CONTEXT_TITLES: Readonly<Record<string, string>> = {
  os: 'Operating System',
  client_os: 'Client Operating System',
  sdk: 'SDK',
  gpu: 'GPU',
  cloud_resource: 'Cloud Resource',
  otel: 'OpenTelemetry',
};

export function Contexts({ payload }: { payload: NormalizedEvent }) {
  const entries = Object.entries(payload.contexts)
    .filter(([name]) => name !== 'trace')
    .map(([name, values]) => [name, Object.entries(values).filter(([key]) => key !== 'type')] as const);
  // The SDK's name and version; its integrations and packages are in the raw event.
  const sdk = payload.sdk
    ? [['sdk', Object.entries({ name: payload.sdk.name, version: payload.sdk.version }).filter(([, v]) => v)] as const]
    : [];
  const all = [...entries, ...sdk].filter(([, values]) => values.length > 0);
  if (all.length === 0) return null;
  return (
    <section class="issue-card" aria-labelledby="contexts-heading">
      <h2 id="contexts-heading">Contexts</h2>
      <div class="contexts">
        {all.map(([name, values]) => (
          <KeyValues
            key={name}
            label={Object.hasOwn(CONTEXT_TITLES, name) ? CONTEXT_TITLES[name]! : name}
            entries={[...values]}
          />
        ))}
      </div>
    </section>
  );
}

interface TraceLogsProps {
  logs: LogRecord[];
  traceId: string | null;
  clock: Clock;
  /** The trace view of the trace: its errors and logs on one timeline. */
  traceHref: string | undefined;
}

export function TraceLogs({ logs, traceId, clock, traceHref }: TraceLogsProps) {
  return (
    <section class="issue-card" aria-labelledby="logs-heading">
      <div class="issue-card-head">
        <h2 id="logs-heading">Logs of this trace</h2>
        {traceId && traceHref && <a href={traceHref}>Open the trace</a>}
      </div>
      {!traceId ? (
        <p class="muted">This event has no trace id, so no logs can be tied to it.</p>
      ) : logs.length === 0 ? (
        <p class="muted">
          No logs share trace <code>{traceId}</code>.
        </p>
      ) : (
        <div class="table-scroll" tabIndex={0}>
          <table class="table table-compact">
            <caption class="visually-hidden">{`Logs with trace id ${traceId}`}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Level</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {logs.map((log) => (
                <tr key={log.id}>
                  <td class="nowrap">
                    <RelativeTime date={new Date(log.timestamp * 1000)} now={clock.now} zone={clock.zone} />
                  </td>
                  <td>
                    <span class={`level level-${log.level}`}>{log.level}</span>
                  </td>
                  <td class="breadcrumb-message">{log.body}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function RawEvent({ payload }: { payload: NormalizedEvent }) {
  return (
    <section class="issue-card" aria-labelledby="raw-heading">
      <h2 id="raw-heading">Raw event</h2>
      <details>
        <summary>Show the event as JSON</summary>
        <pre class="raw-json" tabIndex={0}>
          {JSON.stringify(payload, null, 2)}
        </pre>
      </details>
    </section>
  );
}

function KeyValues({ label, entries }: { label: string; entries: [string, unknown][] }) {
  return (
    <div class="key-values">
      <h3>{label}</h3>
      <dl class="facts facts-compact">
        {entries.map(([key, value]) => (
          <>
            <dt key={`k${key}`}>{key}</dt>
            <dd key={`v${key}`}>{typeof value === 'string' ? value : compactJson(value)}</dd>
          </>
        ))}
      </dl>
    </div>
  );
}

function compactJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
