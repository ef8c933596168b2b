// What the live tail's address says (/logs/live and its /stream): the project and the simple
// filters a tail takes (levels, text in the body, a trace id), all GET parameters, so the page,
// its stream and a shared link name the same tail. A bad value is refused, saying what to send.
import { UserInputError } from '../../core/errors.ts';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../../core/logs/log-record.ts';

export interface TailFilter {
  /** The project's slug; empty for the organization's first project. */
  project: string;
  levels: LogLevel[];
  /** Case-insensitive text the body contains; empty for any. */
  text: string;
  /** 32 lowercase hex characters, or empty for any trace. */
  traceId: string;
}

const MAX_TEXT = 200;
const TRACE_ID = /^[0-9a-f]{32}$/;

export function readTailFilter(params: URLSearchParams): TailFilter {
  const levels: LogLevel[] = [];
  for (const level of params.getAll('level')) {
    if (level === '') continue;
    if (!isLogLevel(level)) throw new UserInputError(`level "${level.slice(0, 40)}" is not one of ${LOG_LEVELS.join(', ')}`);
    if (!levels.includes(level)) levels.push(level);
  }
  const text = (params.get('q') ?? '').trim();
  if (text.length > MAX_TEXT) throw new UserInputError(`the text is ${text.length} characters long; keep it to ${MAX_TEXT}`);
  const traceId = (params.get('trace') ?? '').trim().toLowerCase();
  if (traceId && !TRACE_ID.test(traceId)) {
    throw new UserInputError(`trace "${traceId.slice(0, 40)}" is not a trace id: it is 32 hexadecimal characters`);
  }
  return { project: (params.get('project') ?? '').trim(), levels, text, traceId };
}

/** The address parameters naming a filter (its project made explicit), for the stream and for links. */
export function tailParams(filter: TailFilter): URLSearchParams {
  const params = new URLSearchParams({ project: filter.project });
  for (const level of filter.levels) params.append('level', level);
  if (filter.text) params.set('q', filter.text);
  if (filter.traceId) params.set('trace', filter.traceId);
  return params;
}
