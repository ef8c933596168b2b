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

/**
 * printf-style `%s`/`%d` with a list, or `{name}` with a dict, as Python and PHP SDKs send.
 * The template is cut to the stored length first, and substitution stops once the text is
 * longer than that: a template naming one large param thousands of times built a string of
 * gigabytes, which ran the dispatcher out of memory on every delivery of the event.
 */
function formatParams(message: string, params: unknown): string {
  const template = cap(message);
  let length = template.length;
  const substitute = (match: string, value: () => string): string => {
    if (length > MAX_MESSAGE) return match;
    const text = value();
    length += text.length - match.length;
    return text;
  };
  if (Array.isArray(params)) {
    let index = 0;
    return template.replace(/%(%|s|d|i|f|r)/g, (match, spec: string) => {
      if (spec === '%') return '%';
      if (index >= params.length) return match;
      return substitute(match, () => display(params[index++]));
    });
  }
  if (isRecord(params)) {
    // Each param is written out once, however often the template names it.
    const shown = new Map<string, string>();
    const displayed = (name: string): string => {
      const text = shown.get(name) ?? display(params[name]);
      shown.set(name, text);
      return text;
    };
    const named = (match: string, name: string) =>
      Object.hasOwn(params, name) ? substitute(match, () => displayed(name)) : match;
    return template.replace(/%\((\w+)\)[sdifr]/g, named).replace(/\{(\w+)\}/g, named);
  }
  return template;
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
