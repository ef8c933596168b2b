// The event's exceptions with their stack traces, newest frame first (as Sentry shows them):
// in-app frames only by default, all frames, or the raw text. A symbolicated frame keeps its
// minified original one click away; context lines are numbered.
import type { ExceptionValue, Frame, NormalizedEvent } from '../../../core/event/event.ts';
import { frameLocation, rawFrameLine } from './frames.ts';

export const TRACE_VIEWS = ['app', 'full', 'raw'] as const;
export type TraceView = (typeof TRACE_VIEWS)[number];
const VIEW_LABELS: Record<TraceView, string> = { app: 'In-app', full: 'Full', raw: 'Raw' };

interface StackTraceProps {
  payload: NormalizedEvent;
  view: TraceView;
  /** The address of this view of the page, given another view. */
  viewHref: (view: TraceView) => string;
  /** Debug IDs no uploaded source map matched. */
  unmatchedDebugIds: string[];
}

export function StackTrace({ payload, view, viewHref, unmatchedDebugIds }: StackTraceProps) {
  // SDKs list a chain oldest first; the one raised last leads.
  const exceptions = [...(payload.exception?.values ?? [])].reverse();
  const bare = exceptions.length === 0 && payload.stacktrace ? [{ stacktrace: payload.stacktrace } as ExceptionValue] : [];
  const shown = [...exceptions, ...bare];
  return (
    <section class="issue-card" aria-labelledby="trace-heading">
      <div class="issue-card-head">
        <h2 id="trace-heading">Stack trace</h2>
        <nav class="segmented" aria-label="Stack trace view">
          {TRACE_VIEWS.map((v) => (
            <a key={v} href={viewHref(v)} aria-current={v === view ? 'true' : undefined}>
              {VIEW_LABELS[v]}
            </a>
          ))}
        </nav>
      </div>
      {unmatchedDebugIds.length > 0 && (
        <p class="notice notice-warning">
          {`No uploaded source map matched Debug ID ${unmatchedDebugIds.join(', ')}, so these frames are minified. ` +
            'Upload the bundle and its map with sentry-cli sourcemaps upload; events that arrive after that are symbolicated.'}
        </p>
      )}
      {shown.length === 0 && <p class="muted">This event has no stack trace.</p>}
      {view === 'raw' ? (
        <pre class="raw-trace" tabIndex={0}>
          {shown.map(rawException).join('\n\n')}
        </pre>
      ) : (
        shown.map((exception, i) => <Exception key={i} exception={exception} inAppOnly={view === 'app'} />)
      )}
    </section>
  );
}

function Exception({ exception, inAppOnly }: { exception: ExceptionValue; inAppOnly: boolean }) {
  const frames = exception.stacktrace?.frames ?? [];
  const raw = exception.raw_stacktrace?.frames;
  const indexed = frames.map((frame, index) => ({ frame, minified: raw?.[index] })).reverse();
  const inApp = indexed.filter(({ frame }) => frame.in_app === true);
  const listed = inAppOnly && inApp.length > 0 ? inApp : indexed;
  const hidden = indexed.length - listed.length;
  return (
    <div class="exception">
      {(exception.type || exception.value) && (
        <p class="exception-title">
          <strong>{exception.type ?? 'Error'}</strong>
          {exception.value && <span>{`: ${exception.value}`}</span>}
        </p>
      )}
      {exception.mechanism && (
        <p class="muted small">{`mechanism ${exception.mechanism.type}${exception.mechanism.handled === false ? ', unhandled' : ''}`}</p>
      )}
      <ol class="frames">
        {listed.map(({ frame, minified }, i) => (
          <FrameItem key={i} frame={frame} minified={minified} open={i === 0} />
        ))}
      </ol>
      {hidden > 0 && (
        <p class="muted small">{`${hidden} frame${hidden === 1 ? '' : 's'} outside the app hidden: choose Full to see them.`}</p>
      )}
      {inAppOnly && inApp.length === 0 && indexed.length > 0 && (
        <p class="muted small">No frame is marked in-app: all are shown.</p>
      )}
    </div>
  );
}

function FrameItem({ frame, minified, open }: { frame: Frame; minified: Frame | undefined; open: boolean }) {
  const symbolicated = frame.data?.symbolicated === true;
  const hasContext = frame.context_line !== undefined;
  const heading = (
    <span class="frame-heading">
      <span class="frame-file">{frameLocation(frame)}</span>
      {frame.function && <span class="frame-function">{` in ${frame.function}`}</span>}
      {frame.in_app === true && <span class="badge">in app</span>}
      {symbolicated && <span class="badge badge-accent">source map</span>}
    </span>
  );
  return (
    <li class="frame">
      {hasContext ? (
        <details open={open}>
          <summary>{heading}</summary>
          <ContextLines frame={frame} />
        </details>
      ) : (
        <div class="frame-plain">{heading}</div>
      )}
      {symbolicated && minified && (
        <details class="minified">
          <summary>Minified original</summary>
          <code>{`${minified.function ? `${minified.function} ` : ''}${minified.abs_path ?? minified.filename ?? ''}:${minified.lineno ?? '?'}:${minified.colno ?? '?'}`}</code>
        </details>
      )}
    </li>
  );
}

function ContextLines({ frame }: { frame: Frame }) {
  const pre = frame.pre_context ?? [];
  const post = frame.post_context ?? [];
  const first = frame.lineno === undefined ? undefined : frame.lineno - pre.length;
  const lines = [
    ...pre.map((text) => ({ text, current: false })),
    { text: frame.context_line ?? '', current: true },
    ...post.map((text) => ({ text, current: false })),
  ];
  return (
    <div class="context-lines" tabIndex={0} aria-label="Source around the line">
      {lines.map((line, i) => (
        <div key={i} class={line.current ? 'context-line context-current' : 'context-line'}>
          <span class="line-number">{first === undefined ? '' : String(first + i)}</span>
          <code>{line.text}</code>
        </div>
      ))}
    </div>
  );
}

function rawException(exception: ExceptionValue): string {
  const head =
    exception.type || exception.value
      ? `${exception.type ?? 'Error'}${exception.value ? `: ${exception.value}` : ''}`
      : 'Stack trace';
  const frames = [...(exception.stacktrace?.frames ?? [])].reverse();
  return [head, ...frames.map(rawFrameLine)].join('\n');
}
