// Sentry's glob patterns as grouping rules use them: `*` any run of characters, `?` one,
// `[abc]` a class. In paths (path, package) `*` stops at a slash, `**` crosses slashes, `**/`
// also matches no directory at all, backslashes count as slashes and case is ignored.
import { setFlagsFromString } from 'node:v8';

// Patterns are written by project owners and tested against text SDKs send (paths of up to 1,024
// characters, messages of 8,192): several `*` in one pattern backtrack without bound, and
// `*a*a*a*b` against a path of 512 `a` took 24 s, on the dispatcher's only thread. With this
// flag V8 runs an expression that backtracks past its limit (50,000 steps) on its linear-time
// engine instead; the answer is the same. That engine has no case-insensitive mode, so case is
// ignored by lowercasing the pattern and the text. The flag is the process's; it changes how
// long a pathological expression takes anywhere, never what it matches.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

const cache = new Map<string, RegExp>();

interface GlobOptions {
  path: boolean;
  ignoreCase: boolean;
}

export function globMatches(pattern: string, value: string, options: GlobOptions): boolean {
  return globTester(pattern, options)(value);
}

/** A function testing values against the pattern, compiled once (rules test every frame). */
export function globTester(pattern: string, options: GlobOptions): (value: string) => boolean {
  const regexp = globRegExp(options.ignoreCase ? pattern.toLowerCase() : pattern, options);
  const cased = options.ignoreCase ? (value: string) => value.toLowerCase() : (value: string) => value;
  if (!options.path) return (value) => regexp.test(cased(value));
  return (value) => regexp.test(cased(value.includes('\\') ? value.replace(/\\/g, '/') : value));
}

function globRegExp(pattern: string, options: GlobOptions): RegExp {
  const key = `${options.path ? 'p' : '-'}${options.ignoreCase ? 'i' : '-'}${pattern}`;
  let regexp = cache.get(key);
  if (!regexp) {
    regexp = new RegExp(`^${translate(options.path ? pattern.replace(/\\/g, '/') : pattern, options.path)}$`, 's');
    // Rule texts are few and small; the cap only guards against unbounded growth.
    if (cache.size > 10_000) cache.clear();
    cache.set(key, regexp);
  }
  return regexp;
}

function translate(pattern: string, path: boolean): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*') {
      if (path && pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') {
          i++;
          out += '(?:.*/)?';
        } else out += '.*';
      } else out += path ? '[^/]*' : '.*';
    } else if (char === '?') out += path ? '[^/]' : '.';
    else if (char === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        const body = pattern.slice(i + 1, end);
        out += `[${body.startsWith('!') ? `^${escapeClass(body.slice(1))}` : escapeClass(body)}]`;
        i = end;
      }
    } else out += char.replace(/[.+^${}()|\\/\]]/g, '\\$&');
  }
  return out;
}

function escapeClass(body: string): string {
  return body.replace(/[\\\]^]/g, '\\$&');
}
