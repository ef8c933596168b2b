// The frame an issue is "about", as Sentry's get_crash_frame_from_event_data finds it: the
// newest in-app frame, else the newest frame, of the raised exception's stack trace, else of the
// event's own, else of its thread when it has exactly one. The `{{ function }}`-style fingerprint
// variables take the newest frame whatever it holds (a frame without a function gives
// "<no-function>", as in Sentry). The metadata takes the newest frame with a usable
// function name, and of threads the one grouping takes (the crashed one among several), so an
// issue's function and file come from the stack it is grouped by.
import type { Frame, NormalizedEvent, Stacktrace } from '../event/event.ts';

/** For the metadata: only frames with a usable function name count. */
export function crashFrame(event: NormalizedEvent): Frame | undefined {
  return newestFrame(
    crashFrames(event, singleThreadStacktrace),
    (f) => Boolean(f.function) && f.function !== '<redacted>' && f.function !== '<unknown>',
  );
}

/** For the fingerprint variables: every frame counts. */
export function fingerprintCrashFrame(event: NormalizedEvent): Frame | undefined {
  return newestFrame(crashFrames(event, onlyThreadStacktrace), () => true);
}

function newestFrame(frames: Frame[], counts: (frame: Frame) => boolean): Frame | undefined {
  let newest: Frame | undefined;
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i]!;
    if (!counts(frame)) continue;
    if (frame.in_app) return frame;
    newest ??= frame;
  }
  return newest;
}

function crashFrames(event: NormalizedEvent, thread: (event: NormalizedEvent) => Stacktrace | undefined): Frame[] {
  const values = event.exception?.values;
  const raised = values?.[values.length - 1]?.stacktrace?.frames;
  if (raised && raised.length > 0) return raised;
  if (event.stacktrace && event.stacktrace.frames.length > 0) return event.stacktrace.frames;
  return thread(event)?.frames ?? [];
}

function onlyThreadStacktrace(event: NormalizedEvent): Stacktrace | undefined {
  const threads = (event.threads?.values ?? []) as Array<{ stacktrace?: Stacktrace }>;
  return threads.length === 1 ? threads[0]!.stacktrace : undefined;
}

/** The one thread worth grouping by: the crashed one, else the current one, else the only one. */
export function singleThreadStacktrace(event: NormalizedEvent): Stacktrace | undefined {
  const threads = (event.threads?.values ?? []) as Array<{ crashed?: boolean; current?: boolean; stacktrace?: Stacktrace }>;
  const crashed = threads.filter((t) => t.crashed);
  const current = threads.filter((t) => t.current);
  const thread =
    crashed.length === 1 ? crashed[0] : current.length === 1 ? current[0] : threads.length === 1 ? threads[0] : undefined;
  return thread?.stacktrace;
}
