import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../test/support/seeded-random.ts';
import { globMatches, globTokens, regExpTester } from './glob.ts';
import { segmentsTester } from './glob-segments.ts';

const plain = { path: false, ignoreCase: false };
const caseless = { path: false, ignoreCase: true };

describe('segmentsTester', () => {
  it('answers as the regular expression does for random patterns of text and runs', () => {
    const next = seededRandom(20261206);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const patternParts = ['a', 'b', 'ab', 'aA', '*', '*', '/', ':', '\n', 'ß', 'k', 'S', 'é', '😀'];
    const textParts = ['a', 'b', 'A', '/', ':', '\n', 'ab', 'ba', 'ß', 'SS', 'K', 'ſ', 's', 'É', '😀', '\ud83d'];
    let compared = 0;
    for (let round = 0; round < 6_000; round++) {
      const pattern = Array.from({ length: 1 + Math.floor(next() * 8) }, () => pick(patternParts)).join('');
      const value = Array.from({ length: Math.floor(next() * 12) }, () => pick(textParts)).join('');
      const tokens = globTokens(pattern, false);
      for (const options of [plain, caseless]) {
        const segments = segmentsTester(tokens, options);
        if (!segments) continue;
        const expected = regExpTester(tokens, options)(value);
        expect({ pattern, value, options, answer: segments(value) }).toEqual({ pattern, value, options, answer: expected });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(5_000);
  });

  it('takes only text and runs that cross everything', () => {
    const tester = (pattern: string, options = plain) => segmentsTester(globTokens(pattern, options.path), options);
    expect(tester('*CUDA*')).toBeDefined();
    expect(tester('a*b*c')).toBeDefined();
    expect(tester('CUDA')).toBeUndefined();
    expect(tester('*a?*')).toBeUndefined();
    expect(tester('*[ab]*')).toBeUndefined();
    expect(tester('*CUDA*', caseless)).toBeDefined();
    expect(tester('src/*.js', { path: true, ignoreCase: false })).toBeUndefined();
    expect(tester('**/x/**', { path: true, ignoreCase: false })).toBeUndefined();
  });

  it('keeps the segments apart and inside the ends', () => {
    expect(globMatches('*aba*aba*', 'ababa', plain)).toBe(false);
    expect(globMatches('*aba*aba*', 'abaaba', plain)).toBe(true);
    expect(globMatches('ab*ba', 'aba', plain)).toBe(false);
    expect(globMatches('ab*b*ba', 'abba', plain)).toBe(false);
    expect(globMatches('ab*b*ba', 'abbba', plain)).toBe(true);
    expect(globMatches('*::operator()*', `${'&'.repeat(512)}::operator()`, plain)).toBe(true);
    expect(globMatches('*<lambda>*', '&'.repeat(512), plain)).toBe(false);
    expect(globMatches('*cuda*', 'cuLaunchKernel_CUDA_impl', caseless)).toBe(true);
    expect(globMatches('*cuda*', 'cuLaunchKernel_CUDA_impl', plain)).toBe(false);
    // As a regular expression without `u` ignores case: ſ is not s, K (Kelvin) is not k.
    expect(globMatches('*s*s*', 'ſſ', caseless)).toBe(false);
    expect(globMatches('*k*k*', '\u212Ak', caseless)).toBe(false);
    expect(globMatches('*k*k*', 'Kk', caseless)).toBe(true);
    expect(globMatches('*é*É*', 'ÉÉ', caseless)).toBe(true);
  });
});
