// Which source maps an event needs, by Debug ID (PROTOCOLS.md §5): the first step of
// symbolication (symbolicate.ts), apart from it because the dashboard asks it too, for an event's
// maps that were never uploaded, and should not load the source map parser to do so.
import type { Frame, NormalizedEvent, Stacktrace } from '../event/event.ts';
import { MAX_PATH } from '../event/stacktrace.ts';
import { normalizeDebugId } from './artifact-manifest.ts';

/** Debug IDs the event's frames need: from debug_meta.images of type "sourcemap" whose code_file equals some frame's abs_path (after stripping a leading "async "). */
export function debugIdsNeeded(event: NormalizedEvent): Map<string, string> {
  const byCodeFile = sourceMapImages(event);
  const needed = new Map<string, string>();
  for (const { frames } of pendingStacktraces(event)) {
    for (const frame of frames) {
      const path = lookupPath(frame);
      const debugId = path === undefined ? undefined : byCodeFile.get(path);
      if (path !== undefined && debugId) needed.set(path, debugId);
    }
  }
  return needed;
}

/** code_file → normalized debug id, for the images that describe source maps. */
export function sourceMapImages(event: NormalizedEvent): Map<string, string> {
  const byCodeFile = new Map<string, string>();
  for (const image of event.debug_meta?.images ?? []) {
    if (image.type !== 'sourcemap' || typeof image.code_file !== 'string' || typeof image.debug_id !== 'string') continue;
    const debugId = normalizeDebugId(image.debug_id);
    if (!debugId) continue;
    byCodeFile.set(image.code_file, debugId);
    // A frame's abs_path is cut shorter than a code_file: a script at a long URL (a signed CDN
    // URL's query) matched no image, and its frames stayed minified without a word.
    if (image.code_file.length > MAX_PATH && !byCodeFile.has(image.code_file.slice(0, MAX_PATH))) {
      byCodeFile.set(image.code_file.slice(0, MAX_PATH), debugId);
    }
  }
  return byCodeFile;
}

/** The stack traces still to symbolicate: an exception that already has raw frames was done before. */
function pendingStacktraces(event: NormalizedEvent): Stacktrace[] {
  const out: Stacktrace[] = [];
  for (const exception of event.exception?.values ?? []) {
    if (exception.stacktrace && !exception.raw_stacktrace) out.push(exception.stacktrace);
  }
  if (event.stacktrace) out.push(event.stacktrace);
  return out;
}

/**
 * The path matched against code_file (the exact string, minus the `async ` some SDKs prefix);
 * undefined for a frame that has none or was symbolicated already.
 */
export function lookupPath(frame: Frame): string | undefined {
  if (typeof frame.abs_path !== 'string' || frame.data?.symbolicated === true) return undefined;
  return frame.abs_path.startsWith('async ') ? frame.abs_path.slice('async '.length) : frame.abs_path;
}
