// Breadcrumbs and logs as one line each (get_issue_context): time, category or level, text and
// the data an application attached, so the steps before a crash read like a log. Captured text:
// it goes under untrustedData. The raw event (include: ["raw"]) keeps breadcrumbs whole, and
// search_logs returns logs with every attribute.
import type { Breadcrumb } from '../../core/event/event.ts';
import type { LogRecord } from '../../core/logs/log-record.ts';
import { withinDateRange } from '../../core/event/timestamp.ts';
import { keyValues } from './key-values.ts';

/**
 * `HH:MM:SS.mmm` (UTC) when on the same UTC day as `day`, the event's timestamp, so lines
 * stay short; the full ISO timestamp otherwise; '?' when the SDK sent none (or none a Date holds).
 */
function timeOf(seconds: number | undefined, day: string): string {
  // Out of a Date's range: an event stored before normalizing dropped such times.
  if (seconds === undefined || !withinDateRange(seconds)) return '?';
  const iso = new Date(seconds * 1000).toISOString();
  return iso.startsWith(day) ? iso.slice(11, 23) : iso;
}

function cut(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}…[truncated ${line.length - max} characters]`;
}

/** `21:52:02.048 auth: User logged in method=password`; the level when it is not info. */
function breadcrumbLine(crumb: Breadcrumb, day: string): { time: string; text: string } {
  const level = crumb.level === 'info' ? '' : ` ${crumb.level}`;
  const data = isRecord(crumb.data)
    ? keyValues(Object.entries(crumb.data))
    : crumb.data === undefined
      ? undefined
      : JSON.stringify(crumb.data);
  const text = [crumb.message, data].filter(Boolean).join(' ');
  return { time: timeOf(crumb.timestamp, day), text: `${crumb.category ?? crumb.type}${level}: ${text}` };
}

/**
 * The breadcrumbs as lines, oldest first, at most `maxLines`. A run of the same breadcrumb (a
 * polling request, a retried click) is one line saying how many and when the last was: the
 * steps before a crash stay readable, and a limit on lines reaches further back. Past the limit
 * the first line says how many breadcrumbs were cut (not lines: a cut line may hold a run).
 */
export function breadcrumbLines(crumbs: Breadcrumb[], eventSeconds: number, maxLength: number, maxLines: number): string[] {
  const day = new Date(eventSeconds * 1000).toISOString().slice(0, 10);
  const runs: Array<{ first: string; last: string; text: string; times: number }> = [];
  for (const crumb of crumbs) {
    const { time, text } = breadcrumbLine(crumb, day);
    const previous = runs.at(-1);
    if (previous?.text === text) {
      previous.times += 1;
      previous.last = time;
    } else runs.push({ first: time, last: time, text, times: 1 });
  }
  const lines = (kept: typeof runs) =>
    kept.map(
      (run) =>
        `${cut(`${run.first} ${run.text}`, maxLength)}${run.times === 1 ? '' : ` [${run.times} times, the last at ${run.last}]`}`,
    );
  if (runs.length <= maxLines) return lines(runs);
  const dropped = runs.slice(0, runs.length - (maxLines - 1)).reduce((sum, run) => sum + run.times, 0);
  return [`[truncated ${dropped} older breadcrumbs]`, ...lines(runs.slice(-(maxLines - 1)))];
}

/** `21:52:02.050 error payment declined cartId=7`: the SDK's own `sentry.*` attributes left out. */
export function logLine(log: LogRecord, eventSeconds: number, maxLength: number): string {
  const day = new Date(eventSeconds * 1000).toISOString().slice(0, 10);
  const attributes = Object.entries(log.attributes).filter(([key]) => !key.startsWith('sentry.'));
  const data = attributes.length === 0 ? '' : ` ${keyValues(attributes.map(([key, attribute]) => [key, attribute.value]))}`;
  return cut(`${timeOf(log.timestamp, day)} ${log.level} ${log.body}${data}`, maxLength);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
