import { describe, expect, it } from 'vitest';
import { bounded, lastWithNote } from './bounded.ts';

describe('bounded', () => {
  const bounds = { maxString: 5, maxList: 3, maxDepth: 3 };

  it('cuts long strings and lists, and says how much was cut', () => {
    expect(bounded('abcdefgh', bounds)).toBe('abcde…[truncated 3 characters]');
    expect(bounded([1, 2, 3, 4, 5], bounds)).toEqual([1, 2, 3, '[truncated 2 more items]']);
    expect(bounded({ a: { b: { c: { d: 1 } } } }, bounds)).toEqual({ a: { b: { c: '[truncated: nested too deeply]' } } });
    expect(bounded({ s: 'short', n: 1, t: true, x: null }, bounds)).toEqual({ s: 'short', n: 1, t: true, x: null });
  });

  it('keeps a key named __proto__ (stored events may have one) as data', () => {
    const out = bounded(JSON.parse('{"__proto__":{"a":1}}'), bounds) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"a":1}}');
  });
});

describe('lastWithNote', () => {
  it('keeps the newest entries of an oldest-first list, the note included in the maximum', () => {
    const frames = Array.from({ length: 60 }, (_, i) => `frame ${i}`);
    const kept = lastWithNote(frames, 50, 'frames');
    expect(kept).toHaveLength(50);
    expect(kept[0]).toBe('[truncated 11 older frames]');
    expect(kept.at(-1)).toBe('frame 59');
    // Bounding afterwards cuts nothing more (the crash frame, last, survives).
    expect(bounded(kept, { maxString: 100, maxList: 50, maxDepth: 3 })).toEqual(kept);
    expect(lastWithNote(['a', 'b'], 5, 'breadcrumbs')).toEqual(['a', 'b']);
  });
});
