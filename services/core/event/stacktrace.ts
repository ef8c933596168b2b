// Exceptions, stack traces and frames in every shape SDKs send them. Frames stay oldest first
// (the crashing frame last). filename/abs_path follow Relay's rules, because symbolication
// looks frames up by abs_path and grouping reads the filename.
import {
  boundedJson,
  cappedString,
  cutText,
  isRecord,
  lenientString,
  nonNegativeInt,
  stringList,
  valuesOf,
  type Notes,
} from './coerce.ts';
import type { ExceptionValue, Frame, Mechanism, Stacktrace } from './event.ts';

/** Frames one stack trace keeps: the first and last halves of a longer one. */
export const MAX_FRAMES = 250;
const MAX_EXCEPTIONS = 25;
/** A frame's filename and abs_path are cut here (a debug image's code_file is kept longer). */
export const MAX_PATH = 1024;
const MAX_FUNCTION = 512;
const MAX_CONTEXT_LINE = 1024;
const MAX_CONTEXT_LINES = 10;

export function normalizeExceptions(raw: unknown, notes: Notes): ExceptionValue[] {
  const out: ExceptionValue[] = [];
  const values = valuesOf(raw);
  // Keep the newest ones: the last value is the exception that was actually raised.
  for (const value of values.slice(-MAX_EXCEPTIONS)) {
    const exception = normalizeException(value, notes);
    if (exception) out.push(exception);
  }
  return out;
}

function normalizeException(raw: unknown, notes: Notes): ExceptionValue | undefined {
  if (!isRecord(raw)) {
    notes.push({ type: 'invalid_data', name: 'exception.values' });
    return undefined;
  }
  const exception: ExceptionValue = {};
  const type = cappedString(raw.type, 256, 'exception.type', notes);
  if (type) exception.type = type;
  // Relay reads the value leniently: an object or an array sent as it is written as JSON (bounded
  // first: a value nested 50,000 deep overflowed the stack in JSON.stringify).
  const given =
    typeof raw.value === 'object' && raw.value !== null ? JSON.stringify(boundedJson(raw.value, 5, 1024, 50)) : raw.value;
  const value = cappedString(given, 8192, 'exception.value', notes);
  if (value) exception.value = value;
  // Relay: a value written "TypeError: message" with no type supplies the type itself.
  const split = !exception.type && value ? /^(\w+):(.*)$/.exec(value) : null;
  if (split) {
    exception.type = split[1]!;
    const rest = split[2]!.trim();
    if (rest) exception.value = rest;
    else delete exception.value;
  }
  const module = cappedString(raw.module, 256, 'exception.module', notes);
  if (module) exception.module = module;
  const threadId = lenientString(raw.thread_id);
  if (threadId) exception.thread_id = threadId;
  const mechanism = normalizeMechanism(raw.mechanism);
  if (mechanism) exception.mechanism = mechanism;
  const stacktrace = normalizeStacktrace(raw.stacktrace, notes);
  if (stacktrace) exception.stacktrace = stacktrace;
  if (!exception.type && !exception.value && !exception.stacktrace) return undefined;
  return exception;
}

function normalizeMechanism(raw: unknown): Mechanism | undefined {
  if (!isRecord(raw)) return undefined;
  const mechanism: Mechanism = { type: lenientString(raw.type) || 'generic' };
  if (typeof raw.handled === 'boolean') mechanism.handled = raw.handled;
  if (typeof raw.synthetic === 'boolean') mechanism.synthetic = raw.synthetic;
  if (typeof raw.is_exception_group === 'boolean') mechanism.is_exception_group = raw.is_exception_group;
  const description = lenientString(raw.description);
  if (description) mechanism.description = description.slice(0, 1024);
  const source = lenientString(raw.source);
  if (source) mechanism.source = source.slice(0, 256);
  const exceptionId = nonNegativeInt(raw.exception_id);
  if (exceptionId !== undefined) mechanism.exception_id = exceptionId;
  const parentId = nonNegativeInt(raw.parent_id);
  if (parentId !== undefined) mechanism.parent_id = parentId;
  if (raw.data !== undefined) mechanism.data = boundedJson(raw.data, 4);
  if (raw.meta !== undefined) mechanism.meta = boundedJson(raw.meta, 4);
  return mechanism;
}

export function normalizeStacktrace(raw: unknown, notes: Notes): Stacktrace | undefined {
  if (!isRecord(raw)) return undefined;
  const rawFrames: unknown[] = Array.isArray(raw.frames) ? raw.frames : [];
  // Like Sentry, keep both ends of an overlong trace: where it started and where it crashed.
  // Only the frames kept are normalized: a 1 MiB event of `{}` frames is 350,000 of them, and
  // normalizing all to keep 250 took 120 ms of the dispatcher's CPU per event.
  const half = MAX_FRAMES / 2;
  const { head, tail, omitted } = keptEnds(rawFrames, half);
  const frames: Frame[] = [];
  const normalize = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const frame = normalizeFrame(rawFrames[i], notes);
      if (frame) frames.push(frame);
    }
  };
  normalize(0, head);
  normalize(tail, rawFrames.length);
  if (frames.length === 0) return undefined;
  if (omitted === 0) return { frames };
  return { frames, frames_omitted: [half, half + omitted] };
}

/**
 * Where the first `half` frames (records; anything else is no frame) end and the last `half`
 * begin, and how many frames lie between: none when the trace is short enough to keep whole.
 */
function keptEnds(rawFrames: unknown[], half: number): { head: number; tail: number; omitted: number } {
  let head = 0;
  for (let found = 0; head < rawFrames.length && found < half; head++) if (isRecord(rawFrames[head])) found++;
  let tail = rawFrames.length;
  for (let found = 0; tail > head && found < half;) if (isRecord(rawFrames[--tail])) found++;
  let omitted = 0;
  for (let i = head; i < tail; i++) if (isRecord(rawFrames[i])) omitted++;
  return omitted === 0 ? { head: rawFrames.length, tail: rawFrames.length, omitted } : { head, tail, omitted };
}

function normalizeFrame(raw: unknown, notes: Notes): Frame | undefined {
  if (!isRecord(raw)) {
    notes.push({ type: 'invalid_data', name: 'stacktrace.frames' });
    return undefined;
  }
  const frame: Frame = {};
  let filename = cappedString(raw.filename, MAX_PATH, 'frame.filename', notes) || undefined;
  let absPath = cappedString(raw.abs_path, MAX_PATH, 'frame.abs_path', notes) || undefined;
  // Relay: an empty abs_path takes the filename; an empty filename then takes abs_path, and
  // for a URL only its path (`https://x.com/static/app.js` -> `/static/app.js`).
  if (!absPath && filename) {
    absPath = filename;
    filename = undefined;
  }
  if (!filename && absPath) filename = urlPathOrSelf(absPath);
  if (filename) frame.filename = filename;
  if (absPath) frame.abs_path = absPath;
  const fn = cappedString(raw.function, MAX_FUNCTION, 'frame.function', notes);
  if (fn) frame.function = fn;
  const rawFunction = cappedString(raw.raw_function, MAX_FUNCTION, 'frame.raw_function', notes);
  if (rawFunction) frame.raw_function = rawFunction;
  const module = cappedString(raw.module, MAX_PATH, 'frame.module', notes);
  if (module) frame.module = module;
  const pkg = cappedString(raw.package, MAX_PATH, 'frame.package', notes);
  if (pkg) frame.package = pkg;
  const platform = lenientString(raw.platform);
  if (platform) frame.platform = platform.slice(0, 64);
  const lineno = nonNegativeInt(raw.lineno);
  if (lineno !== undefined) frame.lineno = lineno;
  const colno = nonNegativeInt(raw.colno);
  if (colno !== undefined) frame.colno = colno;
  const contextLine = lenientString(raw.context_line);
  if (contextLine !== undefined) frame.context_line = cutText(contextLine, MAX_CONTEXT_LINE);
  const pre = stringList(raw.pre_context, MAX_CONTEXT_LINES, MAX_CONTEXT_LINE);
  if (pre) frame.pre_context = pre;
  const post = stringList(raw.post_context, MAX_CONTEXT_LINES, MAX_CONTEXT_LINE);
  if (post) frame.post_context = post;
  if (typeof raw.in_app === 'boolean') frame.in_app = raw.in_app;
  if (raw.vars !== undefined && raw.vars !== null) frame.vars = boundedJson(raw.vars, 5, 1024, 50);
  if (isRecord(raw.data)) frame.data = boundedJson(raw.data, 4) as Record<string, unknown>;
  return frame;
}

const URL_SCHEMES = /^(https?|file|applewebdata):\/\//i;

function urlPathOrSelf(path: string): string {
  if (!URL_SCHEMES.test(path)) return path;
  try {
    const url = new URL(path);
    return url.pathname && url.pathname !== '/' ? url.pathname : path;
  } catch {
    return path;
  }
}
