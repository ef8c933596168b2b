import { describe, expect, it } from 'vitest';
import { HOSTNAME_PATTERN, hostnameStarts } from './hostname-starts.ts';

/** Every position where Sentry's pattern matches, tried at each one by the regex engine. */
function byTheRegex(text: string): number[] {
  const at = new RegExp(HOSTNAME_PATTERN, 'y');
  const positions: number[] = [];
  for (let i = 0; i < text.length; i++) {
    at.lastIndex = i;
    if (at.test(text)) positions.push(i);
  }
  return positions;
}

function byTheFinder(text: string): number[] {
  const next = hostnameStarts(text);
  const positions: number[] = [];
  for (let at = next(0); at >= 0; at = next(at + 1)) positions.push(at);
  return positions;
}

describe('hostnameStarts', () => {
  it.each([
    'host db.internal.example.com down',
    'a.a.a.a.a.a.a.a',
    'a.a.a..a.com x-y.io -z.net',
    `${'a'.repeat(70)}.b.com a.${'b'.repeat(63)}.NET a.${'b'.repeat(64)}.org`,
    'foo.comx.net a.co.uk _a.com a_b.com a.b.Com',
    'no dots at all',
  ])('finds the positions the regex matches at: %s', (text) => {
    expect(byTheFinder(text)).toEqual(byTheRegex(text));
  });

  it('finds them in a long chain with no domain at its end, where the regex walks the chain from each start', () => {
    const chain = `${'a.'.repeat(2000)}.com x.com`;
    expect(byTheFinder(chain)).toEqual([chain.length - 5]);
  });
});
