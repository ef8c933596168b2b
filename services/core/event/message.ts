// Every message form SDKs send, merged into one `logentry` as Relay does:
//   "message": "text"                                  (JS captureMessage, Go, Python, PHP)
//   "message": {"message", "params", "formatted"}      (PHP with params)
//   "logentry": {"message", "params", "formatted"}     (Python logging; params list or dict)
import { boundedJson, isRecord, lenientString, type Notes } from './coerce.ts';
import type { LogEntry } from './event.ts';

const MAX_MESSAGE = 8192;

export function normalizeMessage(raw: Record<string, unknown>, notes: Notes): LogEntry | undefined {
  const source = raw.logentry ?? raw['sentry.interfaces.Message'] ?? raw.message;
  if (source === undefined || source === null) return undefined;
  if (!isRecord(source)) {
    const text = lenientString(source);
    if (text === undefined) {
      notes.push({ type: 'invalid_data', name: 'message' });
      return undefined;
    }
    return text === '' ? undefined : { formatted: cap(text) };
  }
  const message = lenientString(source.message);
  // Bounded before use: params are kept in the stored event and shown in the message, and the
  // client's value may nest deeper than JSON.stringify can go.
  const params = source.params === undefined || source.params === null ? undefined : boundedJson(source.params, 4, 1024, 100);
  let formatted = lenientString(source.formatted);
  if (formatted === undefined && message !== undefined) formatted = formatParams(message, params);
  if (formatted === undefined && message === undefined) return undefined;
  const entry: LogEntry = {};
  if (formatted !== undefined) entry.formatted = cap(formatted);
  if (message !== undefined && message !== formatted) entry.message = cap(message);
  if (params !== undefined) entry.params = params;
  return entry;
}

function cap(text: string): string {
  return text.length > MAX_MESSAGE ? text.slice(0, MAX_MESSAGE) : text;
}

/** printf-style `%s`/`%d` with a list, or `{name}` with a dict, as Python and PHP SDKs send. */
function formatParams(message: string, params: unknown): string {
  if (Array.isArray(params)) {
    let index = 0;
    return message.replace(/%(%|s|d|i|f|r)/g, (match, spec: string) => {
      if (spec === '%') return '%';
      if (index >= params.length) return match;
      return display(params[index++]);
    });
  }
  if (isRecord(params)) {
    return message
      .replace(/%\((\w+)\)[sdifr]/g, (match, name: string) => (Object.hasOwn(params, name) ? display(params[name]) : match))
      .replace(/\{(\w+)\}/g, (match, name: string) => (Object.hasOwn(params, name) ? display(params[name]) : match));
  }
  return message;
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
