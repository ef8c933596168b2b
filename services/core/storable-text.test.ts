import { describe, expect, it } from 'vitest';
import { cutText, storableJsonText, storableText } from './storable-text.ts';

describe('storableText', () => {
  it('replaces NUL and lone surrogates with U+FFFD and keeps everything else', () => {
    expect(storableText('a\u0000b\u0000')).toBe('a\ufffdb\ufffd');
    expect(storableText('\ud800x\udc00')).toBe('\ufffdx\ufffd');
    expect(storableText('😀 \u0001 ✓')).toBe('😀 \u0001 ✓');
  });
});

describe('cutText', () => {
  it('cuts at the limit, one unit sooner when the limit falls inside a surrogate pair', () => {
    expect(cutText('abcdef', 4)).toBe('abcd');
    expect(cutText('abc😀', 4)).toBe('abc'); // the limit falls between the pair's halves
    expect(cutText('ab😀d', 4)).toBe('ab😀');
    expect(cutText('ab', 4)).toBe('ab');
  });
});

describe('storableJsonText', () => {
  const through = (value: unknown) => JSON.parse(storableJsonText(JSON.stringify(value))) as unknown;

  it('rewrites the escapes of NUL and of lone surrogates, in keys and values', () => {
    expect(storableJsonText(JSON.stringify({ 'k\u0000': ['\ud800', 'x\udc00y'] }))).toBe('{"k\\ufffd":["\\ufffd","x\\ufffdy"]}');
    expect(through('\udbff\u0000\ud800')).toBe('\ufffd\ufffd\ufffd');
  });

  it('keeps escaped pairs, other escapes, and text that only looks like an escape', () => {
    for (const value of ['😀', '\\u0000', '\\\\u0000', '\\ud800', '\u0001\u001f\t\n"', 'u0000', '\\']) {
      expect(through(value)).toBe(value);
    }
    expect(storableJsonText('"\\ud83d\\ude00"')).toBe('"\\ud83d\\ude00"');
    expect(storableJsonText('"\\uD800\\u0041"')).toBe('"\\ufffd\\u0041"');
    expect(storableJsonText('"\\\\\\u0000"')).toBe('"\\\\\\ufffd"');
  });

  it('returns the very text when nothing needs rewriting', () => {
    const text = JSON.stringify({ a: 'plain', b: [1, 2, 'é'] });
    expect(storableJsonText(text)).toBe(text);
  });
});
