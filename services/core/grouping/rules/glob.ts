// Sentry's glob patterns as grouping rules use them: `*` any run of characters, `?` one,
// `[abc]` a class. In paths (path, package) `*` stops at a slash, `**` crosses slashes, `**/`
// also matches no directory at all, backslashes count as slashes and case is ignored.
//
// A pattern compiles to a regular expression, the fastest way to read the short texts frames
// carry. With several runs (`*`, `**/`), though, a backtracking engine may try every way to split
// the text among them, C(n+k, k) for n characters and k runs, twice over for each `**/` (which
// may also be skipped): `*a*a*a*b` against 512 `a` took 24 s. The text comes from an SDK, so a
// text longer than the expression reads within REGEXP_SPLITS splits, and any text for a pattern
// of more than MAX_REGEXP_RUNS runs, goes to the automaton of glob-automaton.ts, whose time only
// grows with its length; a pattern of literal text and two or more runs that cross slashes
// (outside paths), to glob-segments.ts.
import { automatonTester } from './glob-automaton.ts';
import { segmentsTester } from './glob-segments.ts';

const cache = new Map<string, (value: string) => boolean>();
const REGEXP_SPLITS = 10_000;
const MAX_REGEXP_RUNS = 6;

export interface GlobOptions {
  path: boolean;
  ignoreCase: boolean;
}

/** One element of a glob: a character, `?`, a `[class]`, a run of characters (`*`), or any directories. */
export type GlobToken =
  | { kind: 'char'; char: string }
  | { kind: 'any' }
  | { kind: 'class'; source: string }
  | { kind: 'run'; crossesSlash: boolean }
  | { kind: 'dirs' };

export function globMatches(pattern: string, value: string, options: GlobOptions): boolean {
  return globTester(pattern, options)(value);
}

/** A function testing values against the pattern, compiled once (rules test every frame). */
export function globTester(pattern: string, options: GlobOptions): (value: string) => boolean {
  const test = compiled(pattern, options);
  if (!options.path) return test;
  return (value) => test(value.includes('\\') ? value.replace(/\\/g, '/') : value);
}

function compiled(pattern: string, options: GlobOptions): (value: string) => boolean {
  const key = `${options.path ? 'p' : '-'}${options.ignoreCase ? 'i' : '-'}${pattern}`;
  let test = cache.get(key);
  if (!test) {
    const tokens = globTokens(options.path ? pattern.replace(/\\/g, '/') : pattern, options.path);
    test = withoutBacktracking(tokens, options);
    // Rule texts are few and small; the cap only guards against unbounded growth.
    if (cache.size > 10_000) cache.clear();
    cache.set(key, test);
  }
  return test;
}

function withoutBacktracking(tokens: GlobToken[], options: GlobOptions): (value: string) => boolean {
  const regexp = regExpTester(tokens, options);
  const runs = tokens.filter((token) => token.kind === 'run' || token.kind === 'dirs').length;
  if (runs < 2) return regexp;
  const segments = segmentsTester(tokens, options);
  if (segments) return segments;
  const longestForRegExp =
    runs > MAX_REGEXP_RUNS ? -1 : longestWithin(runs, tokens.filter((token) => token.kind === 'dirs').length);
  // Built on the first long text: most patterns never see one.
  let automaton: ((value: string) => boolean) | undefined;
  return (value) => {
    if (value.length <= longestForRegExp) return regexp(value);
    automaton ??= automatonTester(tokens, options);
    return automaton(value);
  };
}

/** The longest text whose splits among `runs` runs, `dirs` of them skippable, stay within REGEXP_SPLITS. */
function longestWithin(runs: number, dirs: number): number {
  // C(n+k, k) for n = 0, 1, 2, …: each is the last times (n+k)/n.
  let splits = 2 ** dirs;
  let length = 0;
  for (;;) {
    const longer = (splits * (length + 1 + runs)) / (length + 1);
    if (longer > REGEXP_SPLITS) return length;
    splits = longer;
    length++;
  }
}

export function regExpTester(tokens: GlobToken[], options: GlobOptions): (value: string) => boolean {
  const regexp = new RegExp(
    `^${tokens.map((token) => regExpSource(token, options.path)).join('')}$`,
    options.ignoreCase ? 'is' : 's',
  );
  return (value) => regexp.test(value);
}

function regExpSource(token: GlobToken, path: boolean): string {
  switch (token.kind) {
    case 'char':
      return token.char.replace(/[.*+?^${}()|\\/[\]]/g, '\\$&');
    case 'any':
      return path ? '[^/]' : '.';
    case 'class':
      return token.source;
    case 'run':
      return token.crossesSlash ? '.*' : '[^/]*';
    case 'dirs':
      return '(?:.*/)?';
  }
}

export function globTokens(pattern: string, path: boolean): GlobToken[] {
  const tokens: GlobToken[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*') {
      if (path && pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') {
          i++;
          tokens.push({ kind: 'dirs' });
        } else addRun(tokens, true);
      } else addRun(tokens, !path);
    } else if (char === '?') tokens.push({ kind: 'any' });
    else if (char === '[') {
      const end = pattern.indexOf(']', i + 2);
      const body = end === -1 ? '' : pattern.slice(i + 1, end);
      const source = `[${body.startsWith('!') ? `^${escapeClass(body.slice(1))}` : escapeClass(body)}]`;
      if (end === -1) tokens.push({ kind: 'char', char });
      else if (!compiles(source)) {
        // A class the engine refuses (`[z-a]`, a range out of order) is its characters, all
        // literally: compiled, it threw while grouping, and the batch was retried without end.
        for (const literal of pattern.slice(i, end + 1)) tokens.push({ kind: 'char', char: literal });
        i = end;
      } else {
        tokens.push({ kind: 'class', source });
        i = end;
      }
    } else tokens.push({ kind: 'char', char });
  }
  return tokens;
}

// Two runs in a row match what one does (`**` outside paths, `***` in them): one is kept,
// crossing slashes if either did, so that `**` alone never needs the automaton.
function addRun(tokens: GlobToken[], crossesSlash: boolean): void {
  const last = tokens.at(-1);
  if (last?.kind === 'run') last.crossesSlash ||= crossesSlash;
  else tokens.push({ kind: 'run', crossesSlash });
}

function escapeClass(body: string): string {
  return body.replace(/[\\\]^]/g, '\\$&');
}

function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
