// How a frame is named in text: file, line and column.
import type { Frame } from '../../../core/event/event.ts';

export function frameLocation(frame: Frame): string {
  const file = frame.filename ?? frame.abs_path ?? frame.module ?? '<unknown>';
  const line = frame.lineno === undefined ? '' : `:${frame.lineno}${frame.colno === undefined ? '' : `:${frame.colno}`}`;
  return `${file}${line}`;
}

/** A JS-style line of a raw trace: "at fn (file:line:col)". */
export function rawFrameLine(frame: Frame): string {
  return `    at ${frame.function ?? '<anonymous>'} (${frame.abs_path ?? frame.filename ?? '<unknown>'}${
    frame.lineno === undefined ? '' : `:${frame.lineno}${frame.colno === undefined ? '' : `:${frame.colno}`}`
  })`;
}
