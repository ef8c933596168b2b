// get_issue_context's compact exceptions: the chain outermost first with causes nested, each
// with its crash frame (source lines included), other in-app frames as one line each, runs of
// library frames summarized, paths repository-relative. Built from core's pure helpers; all of
// it is captured text, so it goes under untrustedData. The raw event (include: ["raw"]) keeps
// every frame and the full paths.
import type { ExceptionValue, Frame, NormalizedEvent } from '../../core/event/event.ts';
import { exceptionTree, type ExceptionNode } from '../../core/event/exception-chain.ts';
import { repositoryPaths } from '../../core/event/repository-paths.ts';
import { isInApp, summarizeStack, type CrashFrame } from '../../core/event/stack-summary.ts';
import { lastWithNote } from '../bounded.ts';

interface ExceptionViewLimits {
  /** Stack lines per exception (the newest kept). */
  stackLines: number;
  /** Source lines on each side of the crash line. */
  contextLines: number;
  /** Characters of a source line or an exception value. */
  lineLength: number;
  /** Exceptions nested under the outermost one. */
  nesting: number;
}

interface ExceptionView {
  type?: string;
  value?: string;
  module?: string;
  mechanism?: { type: string; handled?: boolean };
  crashFrame: CrashFrame | null;
  stack: string[];
  /** The exception this one was raised from, or a note saying how many were cut. */
  cause?: ExceptionView | string;
  /** An exception group's members. */
  group?: Array<ExceptionView | string>;
}

interface StackView {
  crashFrame: CrashFrame | null;
  stack: string[];
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[truncated ${text.length - max} characters]`;
}

/** Every frame of the event, for the shared repository root. */
function allFrames(event: NormalizedEvent): Frame[] {
  return [...(event.exception?.values ?? []).flatMap((v) => v.stacktrace?.frames ?? []), ...(event.stacktrace?.frames ?? [])];
}

function countNodes(nodes: ExceptionNode[]): number {
  return nodes.reduce((sum, node) => sum + 1 + countNodes(node.children), 0);
}

/** The event's exceptions, outermost first, causes nested. */
export function exceptionsView(event: NormalizedEvent, limits: ExceptionViewLimits): ExceptionView[] {
  const pathOf = repositoryPaths(allFrames(event), isInApp);
  const view = (node: ExceptionNode, depth: number, outermost: boolean): ExceptionView => {
    const { exception } = node;
    const out: ExceptionView = {
      ...(exception.type !== undefined && { type: exception.type }),
      ...(exception.value !== undefined && { value: cut(exception.value, limits.lineLength) }),
      ...(exception.module !== undefined && { module: exception.module }),
      // A cause's mechanism only says "chained": the outermost one says whether it was handled.
      // A handled exception captured the usual way ({type: generic, handled: true}) says nothing
      // more; an unhandled one (a crash) or another capture path does.
      ...(outermost && exception.mechanism && !isPlainCapture(exception) && { mechanism: mechanismOf(exception) }),
      ...stackView(exception.stacktrace?.frames ?? [], pathOf, limits),
    };
    const children = node.children;
    if (children.length === 0) return out;
    if (depth >= limits.nesting) {
      const note = `[truncated ${countNodes(children)} more nested exceptions]`;
      return children.length === 1 ? { ...out, cause: note } : { ...out, group: [note] };
    }
    const nested = children.map((child) => view(child, depth + 1, false));
    return children.length === 1 ? { ...out, cause: nested[0]! } : { ...out, group: nested };
  };
  return exceptionTree(event.exception?.values ?? []).map((root) => view(root, 0, true));
}

/**
 * The outermost exception without its value when the title already reads `type: value` (how SDKs
 * title an exception event): said once, as a message event's message is. A later event whose
 * message differs from the first one's keeps its value.
 */
export function withoutTitleValue<T extends { type?: string; value?: string }>(exceptions: T[], title: string): T[] {
  const [outermost, ...rest] = exceptions;
  if (outermost?.value === undefined) return exceptions;
  // Typed: titled `type: value`; untyped (a message sent with a stack trace): titled by the value.
  const titled = outermost.type === undefined ? outermost.value : `${outermost.type}: ${outermost.value}`;
  if (titled !== title) return exceptions;
  const { value: _said, ...withoutValue } = outermost;
  return [withoutValue as T, ...rest];
}

/** A stack trace without an exception (a message sent with attach_stacktrace). */
export function eventStackView(event: NormalizedEvent, limits: ExceptionViewLimits): StackView | null {
  const frames = event.stacktrace?.frames ?? [];
  if (frames.length === 0) return null;
  return stackView(frames, repositoryPaths(allFrames(event), isInApp), limits);
}

function stackView(frames: Frame[], pathOf: (frame: Frame) => string, limits: ExceptionViewLimits): StackView {
  const summary = summarizeStack(frames, pathOf, { contextLines: limits.contextLines, lineLength: limits.lineLength });
  return { crashFrame: summary.crashFrame, stack: lastWithNote(summary.lines, limits.stackLines, 'stack lines') as string[] };
}

function isPlainCapture(exception: ExceptionValue): boolean {
  return exception.mechanism?.type === 'generic' && exception.mechanism.handled === true;
}

function mechanismOf(exception: ExceptionValue): { type: string; handled?: boolean } {
  const { type, handled } = exception.mechanism!;
  return handled === undefined ? { type } : { type, handled };
}
