import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../test/support/seeded-random.ts';
import { automatonTester } from './glob-automaton.ts';
import { globMatches, globTokens, regExpTester } from './glob.ts';

// The automaton must answer what the regular expression answers; these compare the two.
const modes = [
  { path: true, ignoreCase: true },
  { path: false, ignoreCase: true },
  { path: false, ignoreCase: false },
];

function bothAnswers(pattern: string, value: string, options: (typeof modes)[number]): [boolean, boolean] {
  const tokens = globTokens(pattern, options.path);
  return [regExpTester(tokens, options)(value), automatonTester(tokens, options)(value)];
}

describe('automatonTester', () => {
  it('answers as the regular expression does for random patterns and texts', () => {
    const next = seededRandom(20261129);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const patternParts = ['a', 'B', '/', '.', '*', '**', '**/', '?', '[ab]', '[!a/]', '[Z-a]', '[', 'ß', 'k', '[é-ü]', '😀'];
    const textParts = ['a', 'A', 'b', 'B', '/', '\\', '.', 'z', '_', 'ß', 'SS', 'K', 'ſ', 'k', '[', 'É', 'ö', '😀', '\ud83d'];
    let compared = 0;
    for (let round = 0; round < 4_000; round++) {
      // One pattern in ten is long enough to need more than one word of 32 positions.
      const parts = next() < 0.1 ? 25 + Math.floor(next() * 25) : 1 + Math.floor(next() * 6);
      const pattern = Array.from({ length: parts }, () => pick(patternParts)).join('');
      const value = Array.from({ length: Math.floor(next() * Math.min(parts + 8, 24)) }, () => pick(textParts)).join('');
      for (const options of modes) {
        const [expected, actual] = bothAnswers(pattern, options.path ? value.replace(/\\/g, '/') : value, options);
        expect({ pattern, value, options, answer: actual }).toEqual({ pattern, value, options, answer: expected });
        compared++;
      }
    }
    expect(compared).toBe(12_000);
  });

  it('gives globTester the same answers on either side of the length where it leaves the regular expression', () => {
    const next = seededRandom(7);
    const options = { path: true, ignoreCase: true };
    for (const pattern of ['*a*b', '**/a*b', '*a*a*b', '**/**/x*', '*a?*[ab]*b*', '*a*b*a*b*a*b*a*b']) {
      const regexp = regExpTester(globTokens(pattern, true), options);
      for (let length = 0; length <= 160; length++) {
        const value = Array.from({ length }, () => (next() < 0.5 ? 'a' : next() < 0.5 ? '/' : 'b')).join('');
        expect({ pattern, value, answer: globMatches(pattern, value, options) }).toEqual({
          pattern,
          value,
          answer: regexp(value),
        });
      }
    }
  });

  it('ignores case for every UTF-16 unit exactly as a regular expression without the u flag does', () => {
    const letters = ['a', 'K', 'k', 's', 'S', 'ß', 'ſ', 'µ', 'Μ', 'ÿ', 'İ', 'ı', 'i', 'Σ', 'ς', 'σ', 'ǅ', 'Ω', 'ω', '1', '/'];
    const differing: string[] = [];
    for (const letter of letters) {
      const tokens = globTokens(letter, false);
      const options = { path: false, ignoreCase: true };
      const regexp = regExpTester(tokens, options);
      const automaton = automatonTester(tokens, options);
      for (let unit = 0; unit < 0x10000; unit++) {
        const char = String.fromCharCode(unit);
        if (regexp(char) !== automaton(char)) differing.push(`${letter} ~ U+${unit.toString(16)}`);
      }
    }
    expect(differing).toEqual([]);
  });

  it('reads a pattern of many runs against a long text without backtracking', () => {
    // `*a*a*a*b` against 512 `a` took 24 s as a regular expression (so this test timed out).
    const path = { path: true, ignoreCase: true };
    const caseless = { path: false, ignoreCase: true };
    const tester = (pattern: string, options: typeof path) => automatonTester(globTokens(pattern, options.path), options);
    expect(tester('*a*a*a*b', path)('a'.repeat(512))).toBe(false);
    expect(tester('*A*a*A*B', path)(`${'a'.repeat(512)}b`)).toBe(true);
    expect(tester('*a*a*a*b', path)(`${'a'.repeat(256)}/${'a'.repeat(255)}b`)).toBe(false);
    expect(tester('**/a*a*a*b', path)(`${'x/'.repeat(10)}${'a'.repeat(400)}`)).toBe(false);
    expect(tester('*error*error*error*timeout', caseless)(`${'ERROR '.repeat(1300)}Timeout`)).toBe(true);
    expect(tester('*error*error*error*timeout', caseless)('ERROR '.repeat(1300))).toBe(false);
  });
});
