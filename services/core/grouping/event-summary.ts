// An issue's title, culprit and metadata as Sentry shows them (eventtypes/error.py, base.py,
// culprit.py): "TypeError: x is undefined" and "handler(app/routes.js)" or
// "app.views in index". Computed from the normalized event after in-app rules ran.
import type { Frame, NormalizedEvent, Stacktrace } from '../event/event.ts';
import { eventMessage } from '../event/event.ts';
import type { IssueMetadata } from '../ports/metadata-store.ts';
import { crashFrame } from './crash-frame.ts';
import { mainException } from './main-exception.ts';

const TITLE_LENGTH = 100;
const CULPRIT_LENGTH = 200;

export interface EventSummary {
  title: string;
  culprit: string;
  metadata: IssueMetadata;
}

export function summarizeEvent(event: NormalizedEvent): EventSummary {
  const metadata = eventMetadata(event);
  return { title: eventTitle(event, metadata), culprit: eventCulprit(event), metadata };
}

function eventMetadata(event: NormalizedEvent): IssueMetadata {
  const metadata: IssueMetadata = {};
  const exception = mainException(event);
  if (exception) {
    metadata.value = truncateChars(exception.value ?? '', 1024);
    if (!exception.mechanism?.synthetic) metadata.type = truncateChars(exception.type ?? 'Error', 128);
  }
  const frame = crashFrame(event);
  if (frame) {
    const filename = frame.filename ?? frame.abs_path;
    if (filename) metadata.filename = filename;
    if (frame.function) metadata.function = frame.function;
  }
  return metadata;
}

function eventTitle(event: NormalizedEvent, metadata: IssueMetadata): string {
  // The JavaScript SDKs attach a synthetic, typeless exception to captureMessage events just to
  // carry a stack trace; people know such an event by its message, so that is its title.
  const message = (eventMessage(event) ?? '').trim();
  if (event.type === 'error' && !(metadata.type === undefined && message)) {
    let title = metadata.type;
    if (title !== undefined && metadata.value) title += `: ${truncateChars(firstLine(metadata.value), TITLE_LENGTH)}`;
    return title || metadata.function || '<unknown>';
  }
  return message ? truncateChars(firstLine(message), TITLE_LENGTH) : '<unlabeled event>';
}

function eventCulprit(event: NormalizedEvent): string {
  return truncateChars(event.culprit || event.transaction || generateCulprit(event) || '', CULPRIT_LENGTH);
}

function generateCulprit(event: NormalizedEvent): string {
  const exceptions = event.exception?.values ?? [];
  let stacktraces: Stacktrace[] = [];
  if (exceptions.length > 0) {
    if (exceptions[exceptions.length - 1]!.mechanism?.synthetic) return '';
    stacktraces = exceptions.map((e) => e.stacktrace).filter((s): s is Stacktrace => !!s && s.frames.length > 0);
  } else if (event.stacktrace && event.stacktrace.frames.length > 0) {
    stacktraces = [event.stacktrace];
  }
  const last = stacktraces[stacktraces.length - 1];
  const culprit = last ? stacktraceCulprit(last, event.platform) : '';
  const url = event.request?.url;
  return culprit || (typeof url === 'string' ? url : '');
}

function stacktraceCulprit(stacktrace: Stacktrace, platform: string): string {
  let fallback: string | undefined;
  for (let i = stacktrace.frames.length - 1; i >= 0; i--) {
    const frame = stacktrace.frames[i]!;
    const culprit = frameCulprit(frame, platform);
    if (frame.in_app) {
      if (culprit) return culprit;
    } else if (fallback === undefined) {
      fallback = culprit;
    }
  }
  return fallback ?? '';
}

function frameCulprit(frame: Frame, eventPlatform: string): string {
  const platform = frame.platform ?? eventPlatform;
  if (platform === 'objc' || platform === 'cocoa' || platform === 'native') return frame.function || '?';
  const location = frame.module || frame.filename;
  if (!location) return '';
  if (platform === 'javascript' || platform === 'node') return `${frame.function || '?'}(${location})`;
  return `${location} in ${frame.function || '?'}`;
}

/** Python's str.splitlines()[0]. */
function firstLine(text: string): string {
  return text.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/)[0] ?? '';
}

/** Sentry's truncatechars: at most n code points, the last three being "..." when cut. */
function truncateChars(text: string, n: number): string {
  const chars = Array.from(text);
  return chars.length > n ? `${chars.slice(0, Math.max(0, n - 3)).join('')}...` : text;
}
