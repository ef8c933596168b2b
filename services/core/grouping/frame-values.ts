// The grouping values one frame contributes (Sentry newstyle:2023-01-11 frame:v1):
// module or filename, function, and the normalized context line, each only when it says
// something stable about the code (not a URL, not an anonymous function, not a long line).
import type { Frame } from '../event/event.ts';
import { frameFunctionName, groupingFilename, groupingFunction, groupingModule } from './frame-name-cleanups.ts';
import { isJavaScriptPlatform } from './in-app.ts';

const CONTEXT_LINE_PLATFORMS = new Set(['javascript', 'node', 'python', 'php', 'ruby']);
const JS_ANONYMOUS = new Set(['?', '<anonymous function>', '<anonymous>', 'Anonymous function']);
const JS_NON_CODE_PATHS = new Set(['[native code]', 'native code', 'eval code', '<anonymous>']);
// Whitespace that collapsing changes: runs of two or more, and any single character other than a
// space. A line without any is returned as it is (`\s+` would copy every line with a space).
const EXTRA_WHITESPACE = /\s{2,}|[^\S ]/g;

export function hasUrlOrigin(path: string | undefined, filesCountAsUrls: boolean): boolean {
  if (!path) return false;
  return /^(https?|applewebdata|blob):/i.test(path) || (filesCountAsUrls && /^file:/i.test(path));
}

/** Values in hash order, or null when the frame does not contribute at all. */
export function frameValues(frame: Frame, eventPlatform: string): string[] | null {
  if (frame.data?.ignored_for_grouping === true) return null;
  const platform = frame.platform ?? eventPlatform;
  const js = isJavaScriptPlatform(platform);
  const rawName = frame.raw_function ?? frame.function ?? '';
  if (js && (lastDotSegment(rawName) === 'eval' || JS_NON_CODE_PATHS.has(frame.abs_path ?? ''))) return null;

  const module =
    frame.module && !(platform === 'javascript' && frame.module.includes('/') && frame.abs_path?.endsWith(frame.module))
      ? groupingModule(frame.module, platform)
      : undefined;
  const basename = !module && frame.filename ? lastPathSegment(frame.filename).toLowerCase() : undefined;
  const filename =
    !module && basename && !hasUrlOrigin(frame.abs_path, false) && basename !== '<anonymous>' && basename !== '[native code]'
      ? groupingFilename(basename, platform)
      : undefined;

  let contextLine: string | undefined;
  // Longer lines never contribute, so they are not collapsed.
  if (frame.context_line && frame.context_line.length <= 120 && CONTEXT_LINE_PLATFORMS.has(platform)) {
    const collapsed = frame.context_line.trim().replace(EXTRA_WHITESPACE, ' ');
    const urlWithoutFunction = js && !frame.function && hasUrlOrigin(frame.abs_path, true);
    if (collapsed && !urlWithoutFunction) contextLine = collapsed;
  }

  let fn = frameFunctionName(frame, platform);
  if (fn && !js) fn = groupingFunction(fn, platform);
  if (fn && js) {
    fn = lastDotSegment(fn);
    if (JS_ANONYMOUS.has(fn) || fn.endsWith('/<')) fn = undefined;
    // After symbolication the context line identifies the code better than a minified name.
    if (fn && frame.data?.sourcemap && contextLine) fn = undefined;
  }

  const values: string[] = [];
  const name = module ?? filename;
  if (name !== undefined) values.push(name);
  if (fn) values.push(fn);
  if (contextLine !== undefined) values.push(contextLine);
  return values.length > 0 ? values : null;
}

/** What `split(/[/\\]/).pop()` gives, without an array of every segment. */
function lastPathSegment(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

function lastDotSegment(name: string): string {
  const index = name.lastIndexOf('.');
  return index === -1 ? name : name.slice(index + 1);
}

/** Whether two frames are the same call (recursion), compared as Sentry does. */
export function sameCall(a: Frame, b: Frame): boolean {
  return (
    a.abs_path === b.abs_path &&
    a.package === b.package &&
    a.module === b.module &&
    a.filename === b.filename &&
    a.function === b.function &&
    a.lineno === b.lineno &&
    a.colno === b.colno
  );
}
