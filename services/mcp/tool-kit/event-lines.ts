// Breadcrumbs and logs as one line each (get_issue_context): time, category or level, text and
// the data an application attached, so the steps before a crash read like a log. Captured text:
// it goes under untrustedData. The raw event (include: ["raw"]) keeps breadcrumbs whole, and
// search_logs returns logs with every attribute.
import type { Breadcrumb } from '../../core/event/event.ts';
import type { LogRecord } from '../../core/logs/log-record.ts';

/**
 * `HH:MM:SS.mmm` (UTC) when on the same UTC day as `day`, the event's timestamp, so lines
 * stay short; the full ISO timestamp otherwise; '?' when the SDK sent none.
 */
function timeOf(seconds: number | undefined, day: string): string {
  if (seconds === undefined) return '?';
  const iso = new Date(seconds * 1000).toISOString();
  return iso.startsWith(day) ? iso.slice(11, 23) : iso;
}

function cut(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}…[truncated ${line.length - max} characters]`;
}

/** `21:52:02.048 auth: User logged in {"method":"password"}`; the level when it is not info. */
export function breadcrumbLine(crumb: Breadcrumb, eventSeconds: number, maxLength: number): string {
  const day = new Date(eventSeconds * 1000).toISOString().slice(0, 10);
  const level = crumb.level === 'info' ? '' : ` ${crumb.level}`;
  const text = [crumb.message, crumb.data === undefined ? undefined : JSON.stringify(crumb.data)].filter(Boolean).join(' ');
  return cut(`${timeOf(crumb.timestamp, day)} ${crumb.category ?? crumb.type}${level}: ${text}`, maxLength);
}

/** `21:52:02.050 error payment declined {"cartId":7}`: the SDK's own `sentry.*` attributes left out. */
export function logLine(log: LogRecord, eventSeconds: number, maxLength: number): string {
  const day = new Date(eventSeconds * 1000).toISOString().slice(0, 10);
  const attributes = Object.entries(log.attributes).filter(([key]) => !key.startsWith('sentry.'));
  const data = attributes.length === 0 ? '' : ` ${JSON.stringify(Object.fromEntries(attributes.map(([k, a]) => [k, a.value])))}`;
  return cut(`${timeOf(log.timestamp, day)} ${log.level} ${log.body}${data}`, maxLength);
}
