// The normalized event: the one shape every SDK variant is turned into by normalize-event.ts,
// stored with the event and read by grouping, the read API and (later) the MCP tools.
// It keeps Sentry's canonical field names so payloads look familiar to anyone who knows them.
import type { NormalizationNote } from './coerce.ts';
import type { Level } from './level.ts';

export interface Frame {
  filename?: string;
  abs_path?: string;
  function?: string;
  raw_function?: string;
  module?: string;
  package?: string;
  platform?: string;
  lineno?: number;
  colno?: number;
  context_line?: string;
  pre_context?: string[];
  post_context?: string[];
  in_app?: boolean;
  vars?: unknown;
  data?: Record<string, unknown>;
}

export interface Stacktrace {
  frames: Frame[];
  /** How many frames were cut from the middle of an overlong trace. */
  frames_omitted?: [number, number];
}

export interface Mechanism {
  type: string;
  handled?: boolean;
  synthetic?: boolean;
  description?: string;
  exception_id?: number;
  parent_id?: number;
  is_exception_group?: boolean;
  source?: string;
  data?: unknown;
  meta?: unknown;
}

export interface ExceptionValue {
  type?: string;
  value?: string;
  module?: string;
  thread_id?: string;
  mechanism?: Mechanism;
  stacktrace?: Stacktrace;
  /** The frames as they arrived, kept when symbolication rewrote `stacktrace`. */
  raw_stacktrace?: Stacktrace;
}

export interface Breadcrumb {
  timestamp?: number;
  type: string;
  category?: string;
  message?: string;
  level: Level;
  data?: unknown;
}

export interface LogEntry {
  formatted?: string;
  message?: string;
  params?: unknown;
}

export interface EventUser {
  id?: string;
  email?: string;
  username?: string;
  ip_address?: string;
  name?: string;
  [key: string]: unknown;
}

export interface DebugImage {
  type: string;
  code_file?: string;
  debug_id?: string;
  [key: string]: unknown;
}

export interface NormalizedEvent {
  event_id: string;
  /** Float seconds since the epoch: when it happened, per the SDK (clamped when implausible). */
  timestamp: number;
  /** Float seconds since the epoch: when ingest accepted it. */
  received: number;
  type: 'error' | 'default';
  platform: string;
  level: Level;
  logger?: string;
  transaction?: string;
  server_name?: string;
  release?: string;
  dist?: string;
  environment?: string;
  culprit?: string;
  logentry?: LogEntry;
  exception?: { values: ExceptionValue[] };
  /** A stack trace without an exception (e.g. a message sent with attach_stacktrace). */
  stacktrace?: Stacktrace;
  threads?: { values: unknown[] };
  breadcrumbs?: { values: Breadcrumb[] };
  tags: Record<string, string>;
  user?: EventUser;
  request?: Record<string, unknown>;
  contexts: Record<string, Record<string, unknown>>;
  sdk?: { name?: string; version?: string; [key: string]: unknown };
  fingerprint?: string[];
  extra?: Record<string, unknown>;
  modules?: Record<string, string>;
  debug_meta?: { images: DebugImage[]; [key: string]: unknown };
  /** What normalization coerced or dropped, so no field disappears silently. */
  errors?: NormalizationNote[];
  /** SDK fields we do not model, kept (bounded) so the payload stays complete. */
  [unknownField: string]: unknown;
}

/** The exception that was raised last: SDKs list a chain oldest first. */
export function primaryException(event: NormalizedEvent): ExceptionValue | undefined {
  const values = event.exception?.values;
  return values && values.length > 0 ? values[values.length - 1] : undefined;
}

/** The message text as a person would read it. */
export function eventMessage(event: NormalizedEvent): string | undefined {
  return event.logentry?.formatted ?? event.logentry?.message;
}

export function traceIdOf(event: NormalizedEvent): string | undefined {
  const traceId = event.contexts.trace?.trace_id;
  return typeof traceId === 'string' && /^[0-9a-f]{32}$/.test(traceId) ? traceId : undefined;
}

/** Every stack trace of the event: its exceptions', its own, then its threads'. */
export function eventStacktraces(event: NormalizedEvent): Stacktrace[] {
  const out: Stacktrace[] = [];
  for (const exception of event.exception?.values ?? []) if (exception.stacktrace) out.push(exception.stacktrace);
  if (event.stacktrace) out.push(event.stacktrace);
  for (const thread of event.threads?.values ?? []) {
    const stacktrace = (thread as { stacktrace?: Stacktrace }).stacktrace;
    if (stacktrace) out.push(stacktrace);
  }
  return out;
}
