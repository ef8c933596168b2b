import { describe, expect, it } from 'vitest';
import { TailWindow } from './tail-window.ts';

const OPENED = 1_800_000_000;
const record = (id: string, timestamp: number) => ({ id, timestamp });

describe('the live tail window', () => {
  it('reads from when the tail opened, then from a few seconds back', () => {
    const window = new TailWindow(OPENED, 15);
    expect(window.since(OPENED)).toBe(OPENED);
    expect(window.since(OPENED + 10)).toBe(OPENED);
    expect(window.since(OPENED + 100)).toBe(OPENED + 85);
  });

  it('shows each record once, also when several share a timestamp and arrive in different polls', () => {
    const window = new TailWindow(OPENED, 15);
    const t = OPENED + 1;
    expect(window.fresh([record('a:0', t), record('a:1', t)], OPENED).map((r) => r.id)).toEqual(['a:0', 'a:1']);
    // The next poll reads the same window again: a third record with the same timestamp is new.
    expect(window.fresh([record('a:0', t), record('a:1', t), record('b:0', t)], OPENED).map((r) => r.id)).toEqual(['b:0']);
    expect(window.fresh([record('a:0', t), record('a:1', t), record('b:0', t)], OPENED)).toEqual([]);
  });

  it('shows a record that arrives late, stamped before one already shown', () => {
    const window = new TailWindow(OPENED, 15);
    expect(window.fresh([record('new', OPENED + 8)], OPENED).map((r) => r.id)).toEqual(['new']);
    expect(window.fresh([record('late', OPENED + 3), record('new', OPENED + 8)], OPENED).map((r) => r.id)).toEqual(['late']);
  });

  it('forgets ids older than the window', () => {
    const window = new TailWindow(OPENED, 15);
    window.fresh([record('old', OPENED + 1)], OPENED);
    // Once the window has moved past it, a store could no longer return it; were it returned
    // again (it cannot be), it would count as new: the memory is bounded by the window.
    expect(window.fresh([], OPENED + 2)).toEqual([]);
    expect(window.fresh([record('old', OPENED + 1)], OPENED + 2).map((r) => r.id)).toEqual(['old']);
  });
});
