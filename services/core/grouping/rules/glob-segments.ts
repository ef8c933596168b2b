// A glob of literal text and runs (`*`) that cross everything, as `*CUDA*` or `*::operator()*`:
// a value matches when it starts with the text before the first run, ends with the text after
// the last, and holds the texts between them in order, each found at its first place after the
// one before (leftmost is never worse for what follows). indexOf reads a long value without the
// automaton's work per character: the built-in native rules' five such patterns took most of a
// hostile native event's 0.3 s of grouping. Ignoring case, pattern and value are both folded
// one UTF-16 unit at a time, as a regular expression with `i` and without `u` compares them,
// which keeps every position where it was.
import { canonicalize } from './glob-automaton.ts';
import type { GlobOptions, GlobToken } from './glob.ts';

/** The tester, or undefined when the pattern has anything else (`?`, a class, a run a slash stops, `**\/`). */
export function segmentsTester(tokens: GlobToken[], options: GlobOptions): ((value: string) => boolean) | undefined {
  const fold = options.ignoreCase ? foldCase : (text: string) => text;
  const segments = [''];
  for (const token of tokens) {
    if (token.kind === 'char') segments[segments.length - 1] += fold(token.char);
    else if (token.kind === 'run' && token.crossesSlash) segments.push('');
    else return undefined;
  }
  if (segments.length < 2) return undefined;
  const first = segments[0]!;
  const last = segments.at(-1)!;
  const middle = segments.slice(1, -1).filter((segment) => segment !== '');
  return (original) => {
    const value = fold(original);
    if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
    const end = value.length - last.length;
    let at = first.length;
    for (const segment of middle) {
      const found = value.indexOf(segment, at);
      if (found === -1 || found + segment.length > end) return false;
      at = found + segment.length;
    }
    return true;
  };
}

/** Each UTF-16 unit canonicalized (ASCII's upper case is the same, and quicker, whole). */
function foldCase(text: string): string {
  if (ASCII.test(text)) return text.toUpperCase();
  let folded = '';
  for (let at = 0; at < text.length; at++) folded += canonicalize(text[at]!);
  return folded;
}

const ASCII = /^[\x00-\x7f]*$/;
