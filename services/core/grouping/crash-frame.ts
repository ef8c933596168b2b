// The frame an issue is "about": the newest in-app frame of the raised exception (else the
// newest frame) that has a usable function name. Used for the metadata and for the
// `{{ function }}`-style fingerprint variables.
import type { Frame, NormalizedEvent, Stacktrace } from '../event/event.ts';

export function crashFrame(event: NormalizedEvent): Frame | undefined {
  const frames = crashStacktrace(event)?.frames ?? [];
  const usable = frames.filter((f) => f.function && f.function !== '<redacted>' && f.function !== '<unknown>');
  for (let i = usable.length - 1; i >= 0; i--) if (usable[i]!.in_app) return usable[i];
  return usable[usable.length - 1];
}

function crashStacktrace(event: NormalizedEvent): Stacktrace | undefined {
  const values = event.exception?.values;
  if (values && values.length > 0) return values[values.length - 1]!.stacktrace;
  if (event.stacktrace) return event.stacktrace;
  return singleThreadStacktrace(event);
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
