// A stack trace in the few lines an agent needs (get_issue_context): the crash frame (the newest
// frame of the application's own code) with its source lines, every other in-app frame as one
// line, and each run of library frames as one line naming their packages
// (`7 library frames: @sentry/core, node:async_hooks`). Frames stay oldest first, as SDKs send
// them, so the crash frame is the last in-app line. The raw event keeps every frame whole.
import type { Frame } from './event.ts';
import { framePath, withoutServingPrefix } from './repository-paths.ts';

export interface CrashFrame {
  file: string;
  line?: number;
  column?: number;
  function?: string;
  /** Source lines around the crash, keyed by line number (or in order when the SDK sent no line number). */
  context?: Record<string, string> | string[];
}

interface StackSummary {
  /** The newest in-app frame (the newest frame when none is in-app); null for an empty stack. */
  crashFrame: CrashFrame | null;
  /** Oldest first: one line per in-app frame (the crash frame's is `[crash frame]`), one per run of library frames. */
  lines: string[];
}

interface StackSummaryLimits {
  /** Source lines kept on each side of the crash line. */
  contextLines: number;
  /** Characters kept of each source line. */
  lineLength: number;
}

const LIBRARY_PATH = /(?:^|\/)(?:node_modules|site-packages|dist-packages|vendor\/bundle|\.cargo\/registry)\//;
const LABELS_NAMED = 3;
// The crash frame's own line: its file, line and function are in crashFrame, said once there.
const CRASH_LINE = '[crash frame]';

/**
 * Whether a frame is the application's own code: what the SDK said, and when it said nothing,
 * anything not under a package directory and not a runtime builtin (`node:internal/...`).
 */
export function isInApp(frame: Frame): boolean {
  if (frame.in_app !== undefined) return frame.in_app;
  return !pathsOf(frame).some((path) => LIBRARY_PATH.test(path) || /^node:/.test(path));
}

/** The reported path, then abs_path: Python's filename is relative, its abs_path shows site-packages. */
function pathsOf(frame: Frame): string[] {
  return [framePath(frame), frame.abs_path ?? ''].map(withoutServingPrefix);
}

/**
 * The package a library frame belongs to: the directory after the last `node_modules/`
 * (`@scope/name` for scoped packages), the top package under `site-packages/`, `node:internal`
 * or the builtin (`node:async_hooks`), else the frame's package or module, else its path.
 */
export function libraryOf(frame: Frame): string {
  const paths = pathsOf(frame);
  for (const path of paths) {
    const nodeModules = path.lastIndexOf('node_modules/');
    if (nodeModules !== -1) {
      const [first, second] = path.slice(nodeModules + 'node_modules/'.length).split('/');
      return first?.startsWith('@') && second ? `${first}/${second}` : first || 'node_modules';
    }
    if (path.startsWith('node:')) return path.startsWith('node:internal') ? 'node:internal' : path.split('/')[0]!;
    const site = /(?:site-packages|dist-packages)\/([^/]+)/.exec(path);
    if (site) return site[1]!.replace(/\.py$/, '');
  }
  if (frame.package) return frame.package.split(/[\\/]/).pop() || frame.package;
  if (frame.module) return frame.module.split(/[.:/]/)[0] || frame.module;
  return paths[0] || paths[1] || '?';
}

function oneLine(frame: Frame, path: string): string {
  const at = frame.lineno === undefined ? path || '?' : `${path || '?'}:${frame.lineno}`;
  return `${at} in ${frame.function ?? '?'}`;
}

function libraryRun(frames: Frame[]): string {
  const labels = [...new Set(frames.map(libraryOf))];
  const named = labels.slice(0, LABELS_NAMED).join(', ');
  const more = labels.length > LABELS_NAMED ? ` and ${labels.length - LABELS_NAMED} more` : '';
  return `${frames.length} library frame${frames.length === 1 ? '' : 's'}: ${named}${more}`;
}

function cut(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}…[${line.length - max} more characters]`;
}

function sourceContext(frame: Frame, limits: StackSummaryLimits): CrashFrame['context'] {
  if (frame.context_line === undefined) return undefined;
  const pre = limits.contextLines === 0 ? [] : (frame.pre_context ?? []).slice(-limits.contextLines);
  const post = (frame.post_context ?? []).slice(0, limits.contextLines);
  const lines = [...pre, frame.context_line, ...post].map((line) => cut(line, limits.lineLength));
  if (frame.lineno === undefined) return lines;
  const first = frame.lineno - pre.length;
  return Object.fromEntries(lines.map((line, i) => [String(first + i), line]));
}

/** The summary of one stack (frames oldest first); `pathOf` gives each frame's repository-relative path. */
export function summarizeStack(frames: Frame[], pathOf: (frame: Frame) => string, limits: StackSummaryLimits): StackSummary {
  if (frames.length === 0) return { crashFrame: null, lines: [] };
  let crashIndex = frames.findLastIndex(isInApp);
  const anyInApp = crashIndex !== -1;
  if (!anyInApp) crashIndex = frames.length - 1;

  const lines: string[] = [];
  let run: Frame[] = [];
  const flush = () => {
    if (run.length > 0) lines.push(libraryRun(run));
    run = [];
  };
  frames.forEach((frame, i) => {
    if (i !== crashIndex && !(anyInApp && isInApp(frame))) {
      run.push(frame);
      return;
    }
    flush();
    lines.push(i === crashIndex ? CRASH_LINE : oneLine(frame, pathOf(frame)));
  });
  flush();

  const crash = frames[crashIndex]!;
  const context = sourceContext(crash, limits);
  return {
    crashFrame: {
      file: pathOf(crash),
      ...(crash.lineno !== undefined && { line: crash.lineno }),
      ...(crash.colno !== undefined && { column: crash.colno }),
      ...(crash.function !== undefined && { function: crash.function }),
      ...(context !== undefined && { context }),
    },
    lines: collapseRepeats(lines),
  };
}

/** Recursion: the same line many times in a row becomes one line and a count. */
function collapseRepeats(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i + 1;
    while (j < lines.length && lines[j] === lines[i]) j += 1;
    out.push(j - i > 1 ? `${lines[i]} (${j - i} times in a row)` : lines[i]!);
    i = j;
  }
  return out;
}
