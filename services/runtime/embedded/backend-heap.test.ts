import { describe, expect, it } from 'vitest';
import { backendHeapMb } from './backend-heap.ts';

const GiB = 2 ** 30;

describe('the backend thread heap cap', () => {
  it('is 2,000 MB where there is room for it', () => {
    expect(backendHeapMb(8 * GiB)).toBe(2000);
    expect(backendHeapMb(24 * GiB)).toBe(2000);
  });

  it('stays a quarter of the memory on a small machine, so a runaway batch ends the thread before the kernel ends the process', () => {
    expect(backendHeapMb(4 * GiB)).toBe(1024);
    expect(backendHeapMb(2 * GiB)).toBe(512);
  });

  it('is never below 256 MB, what the dispatcher and its source map cache need', () => {
    expect(backendHeapMb(1 * GiB)).toBe(256);
    expect(backendHeapMb(512 * 2 ** 20)).toBe(256);
  });

  it('is computed from this machine or its container when not told', () => {
    const cap = backendHeapMb();
    expect(cap).toBeGreaterThanOrEqual(256);
    expect(cap).toBeLessThanOrEqual(2000);
  });
});
