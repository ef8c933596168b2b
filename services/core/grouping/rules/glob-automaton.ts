// A glob matched without backtracking: every position the pattern could have reached is
// carried along the text at once, as the bits of a bit set (a Thompson automaton), so the time
// is at most the text's length times the pattern's (times its length over 32 for a pattern of
// more than 32 positions), whatever the number of runs (`*`). It answers exactly what the
// regular expression of glob.ts answers: classes are tested by that engine, and case is
// compared as a regular expression without `u` compares it.
import type { GlobOptions, GlobToken } from './glob.ts';

interface State {
  test: (char: string) => boolean;
  /** A run: stays here on a matching character. */
  loops: boolean;
  /** The states (as offsets from this one) also reached, without reading, on reaching this one. */
  alsoReaches: number[];
}

const ASCII = 128;
/** Other characters' accepting sets are remembered, up to this many per pattern. */
const REMEMBERED_CHARS = 4_096;

export function automatonTester(tokens: GlobToken[], options: GlobOptions): (value: string) => boolean {
  const states = tokens.flatMap((token) => statesOf(token, options));
  const end = states.length;
  const words = (end >> 5) + 1;
  // For every state, the set it stands for once reached (itself and what it also reaches).
  const closures = states.map((_, state) => closureOf(states, state, words));
  const loops = bitSet(words, (state) => states[state]?.loops === true, end);
  const accepts = (char: string): Uint32Array => bitSet(words, (state) => states[state]?.test(char) === true, end);
  // Each character's set of states that read it, worked out on its first appearance.
  const asciiAccepts: Array<Uint32Array | undefined> = new Array(ASCII);
  const otherAccepts = new Map<number, Uint32Array>();
  const acceptsOther = (code: number): Uint32Array => {
    let set = otherAccepts.get(code);
    if (!set) {
      set = accepts(String.fromCharCode(code));
      if (otherAccepts.size >= REMEMBERED_CHARS) otherAccepts.clear();
      otherAccepts.set(code, set);
    }
    return set;
  };
  const start = closures[0] ?? bitSet(words, (state) => state === 0, end);

  return (value) => {
    let current = start.slice();
    let next = new Uint32Array(words);
    for (let at = 0; at < value.length; at++) {
      const code = value.charCodeAt(at);
      const accepted = code < ASCII ? (asciiAccepts[code] ??= accepts(value[at]!)) : acceptsOther(code);
      next.fill(0);
      let any = 0;
      for (let word = 0; word < words; word++) {
        let read = current[word]! & accepted[word]!;
        while (read !== 0) {
          const bit = 31 - Math.clz32(read & -read);
          read &= read - 1;
          const state = (word << 5) | bit;
          const target = loops[word]! & (1 << bit) ? state : state + 1;
          const closure = closures[target];
          if (closure) for (let w = 0; w < words; w++) next[w]! |= closure[w]!;
          else next[target >> 5]! |= 1 << (target & 31);
          any = 1;
        }
      }
      if (any === 0) return false;
      const swap = current;
      current = next;
      next = swap;
    }
    return (current[end >> 5]! & (1 << (end & 31))) !== 0;
  };
}

function closureOf(states: State[], from: number, words: number): Uint32Array {
  const set = new Uint32Array(words);
  const visit = (state: number): void => {
    if (set[state >> 5]! & (1 << (state & 31))) return;
    set[state >> 5]! |= 1 << (state & 31);
    for (const offset of states[state]?.alsoReaches ?? []) visit(state + offset);
  };
  visit(from);
  return set;
}

function bitSet(words: number, has: (state: number) => boolean, end: number): Uint32Array {
  const set = new Uint32Array(words);
  for (let state = 0; state <= end; state++) if (has(state)) set[state >> 5]! |= 1 << (state & 31);
  return set;
}

function statesOf(token: GlobToken, { path, ignoreCase }: GlobOptions): State[] {
  const anyChar = path ? notSlash : always;
  switch (token.kind) {
    case 'char':
      return [reads(ignoreCase ? sameIgnoringCase(token.char) : (char) => char === token.char)];
    case 'any':
      return [reads(anyChar)];
    case 'class': {
      const regexp = new RegExp(`^${token.source}$`, ignoreCase ? 'i' : '');
      return [reads((char) => regexp.test(char))];
    }
    case 'run':
      return [{ test: token.crossesSlash ? always : notSlash, loops: true, alsoReaches: [1] }];
    case 'dirs':
      // Either nothing at all (on to the state after the slash), or a run (slashes included)
      // ending with a slash: once the run has read a character, the group is no longer skipped.
      return [
        { test: never, loops: false, alsoReaches: [1, 3] },
        { test: always, loops: true, alsoReaches: [1] },
        reads((char) => char === '/'),
      ];
  }
}

function reads(test: (char: string) => boolean): State {
  return { test, loops: false, alsoReaches: [] };
}

const always = (): boolean => true;
const never = (): boolean => false;
const notSlash = (char: string): boolean => char !== '/';

function sameIgnoringCase(expected: string): (char: string) => boolean {
  const folded = canonicalize(expected);
  return (char) => char === expected || canonicalize(char) === folded;
}

// ECMAScript's Canonicalize for a regular expression with the `i` flag and without `u`: the
// upper case of one UTF-16 unit, unless that is several units or takes a non-ASCII character to
// ASCII (so `ſ` stays apart from `s`, and the Kelvin sign from `k`).
export function canonicalize(char: string): string {
  const upper = char.toUpperCase();
  if (upper.length !== 1) return char;
  if (char.charCodeAt(0) >= 128 && upper.charCodeAt(0) < 128) return char;
  return upper;
}
