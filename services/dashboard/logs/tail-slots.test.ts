import { describe, expect, it } from 'vitest';
import { TailSlots } from './tail-slots.ts';

describe('live tail slots', () => {
  it('gives each person a few, and a released one (once, however often released) back', () => {
    const slots = new TailSlots(2);
    const first = slots.take(1)!;
    expect(slots.take(1)).toBeDefined();
    expect(slots.take(1)).toBeUndefined();
    // Another person has their own.
    expect(slots.take(2)).toBeDefined();
    first();
    first();
    expect(slots.take(1)).toBeDefined();
    expect(slots.take(1)).toBeUndefined();
  });
});
