import { describe, expect, it } from 'vitest';
import { keyValues } from './key-values.ts';

describe('keyValues', () => {
  it('writes key=value, quoting only a value a reader could not tell the end of', () => {
    expect(
      keyValues([
        ['route', '/checkout'],
        ['user.id', 'user-shop@1.2.0'],
        ['ms', 900],
        ['cached', false],
        ['missing', null],
      ]),
    ).toBe('route=/checkout user.id=user-shop@1.2.0 ms=900 cached=false missing=null');
    expect(
      keyValues([
        ['message', 'payment declined'],
        ['empty', ''],
        ['quote', 'say "hi"'],
        ['query', 'a=b'],
      ]),
    ).toBe('message="payment declined" empty="" quote="say \\"hi\\"" query="a=b"');
  });

  it('keeps an object or a list as JSON', () => {
    expect(keyValues([['cart', { id: 7, items: [1, 2] }]])).toBe('cart={"id":7,"items":[1,2]}');
  });
});
