// Sentry's glob patterns as grouping rules use them: `*` any run of characters, `?` one,
// `[abc]` a class. In paths (path, package) `*` stops at a slash, `**` crosses slashes, `**/`
// also matches no directory at all, backslashes count as slashes and case is ignored.
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
  const regexp = globRegExp(pattern, options);
  if (!options.path) return (value) => regexp.test(value);
  return (value) => regexp.test(value.includes('\\') ? value.replace(/\\/g, '/') : value);
}

function globRegExp(pattern: string, options: GlobOptions): RegExp {
  const key = `${options.path ? 'p' : '-'}${options.ignoreCase ? 'i' : '-'}${pattern}`;
  let regexp = cache.get(key);
  if (!regexp) {
    regexp = new RegExp(
      `^${translate(options.path ? pattern.replace(/\\/g, '/') : pattern, options.path)}$`,
      options.ignoreCase ? 'is' : 's',
    );
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
