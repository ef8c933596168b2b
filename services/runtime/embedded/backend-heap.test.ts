import { describe, expect, it } from 'vitest';
import { availableMemoryBytes, backendHeapMb } from './backend-heap.ts';

const GiB = 2 ** 30;

describe('the backend thread heap cap', () => {
  it('is 2,000 MB where there is room for it', () => {
    expect(backendHeapMb(8 * GiB)).toBe(2000);
    expect(backendHeapMb(24 * GiB)).toBe(2000);
  });

  it('is a quarter of the memory on a small machine', () => {
    expect(backendHeapMb(4 * GiB)).toBe(1024);
    expect(backendHeapMb(2 * GiB)).toBe(512);
  });

  it('is never below 256 MB, what the dispatcher and its source map cache need', () => {
    expect(backendHeapMb(1 * GiB)).toBe(256);
    expect(backendHeapMb(512 * 2 ** 20)).toBe(256);
  });

  it("takes the container's limit when it is below the machine's memory", () => {
    expect(availableMemoryBytes(1 * GiB, 24 * GiB)).toBe(1 * GiB);
    expect(backendHeapMb(availableMemoryBytes(2 * GiB, 24 * GiB))).toBe(512);
  });

  it("takes the machine's memory when the container has no limit, however Node says so", () => {
    expect(availableMemoryBytes(undefined, 4 * GiB)).toBe(4 * GiB);
    expect(availableMemoryBytes(0, 4 * GiB)).toBe(4 * GiB);
    expect(availableMemoryBytes(2 ** 64, 4 * GiB)).toBe(4 * GiB);
    expect(availableMemoryBytes(9223372036854771712, 4 * GiB)).toBe(4 * GiB);
    expect(availableMemoryBytes(32 * GiB, 4 * GiB)).toBe(4 * GiB);
  });
});
