// Every message form SDKs send, merged into one `logentry` as Relay does:
//   "message": "text"                                  (JS captureMessage, Go, Python, PHP)
//   "message": {"message", "params", "formatted"}      (PHP with params)
//   "logentry": {"message", "params", "formatted"}     (Python logging; params list or dict)
import { boundedJson, cutText, isRecord, lenientString, type Notes } from './coerce.ts';
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
  // Compared as stored: a long template with nothing to fill is kept once, as formatted.
  if (message !== undefined && cap(message) !== entry.formatted) entry.message = cap(message);
  if (params !== undefined) entry.params = params;
  return entry;
}

function cap(text: string): string {
  return cutText(text, MAX_MESSAGE);
}

/**
 * printf-style `%s`/`%d` with a list, or `{name}` with a dict, as Python and PHP SDKs send.
 * Only placeholders that start within the stored length are filled: a template naming one
 * large param thousands of times built a string of gigabytes, which ran the dispatcher out of
 * memory on every delivery of the event. What is filled is what is kept, as before.
 */
function formatParams(message: string, params: unknown): string {
  const template = cap(message);
  if (Array.isArray(params)) {
    let index = 0;
    const fill = filler();
    return template.replace(/%(%|s|d|i|f|r)/g, (match, spec: string, offset: number) => {
      if (spec === '%') return fill(match, offset, () => '%');
      if (index >= params.length) return match;
      return fill(match, offset, () => display(params[index++]));
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
    const named = (fill: Fill) => (match: string, name: string, offset: number) =>
      Object.hasOwn(params, name) ? fill(match, offset, () => displayed(name)) : match;
    return template.replace(/%\((\w+)\)[sdifr]/g, named(filler())).replace(/\{(\w+)\}/g, named(filler()));
  }
  return template;
}

/** A placeholder's replacement, given where it starts in the template of one replace() pass. */
type Fill = (match: string, offset: number, value: () => string) => string;

/** Fills placeholders until the text written so far reaches the stored length, then leaves them. */
function filler(): Fill {
  let growth = 0;
  return (match, offset, value) => {
    if (offset + growth >= MAX_MESSAGE) return match;
    const text = value();
    growth += text.length - match.length;
    return text;
  };
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
