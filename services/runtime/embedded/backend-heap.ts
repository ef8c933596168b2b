// The backend thread's heap cap. Its WebAssembly database memory is outside of it. Room for the
// dispatcher's work plus its source map cache (BACKEND_SOURCE_MAP_CACHE_BYTES, backend-thread.ts).
//
// The cap also sets how far V8 lets the heap grow past what a full collection kept before it
// marks again: 1.3 times at 256 MB or less, rising linearly to 2 times just under 2,048 MB
// (MemoryController::MaxGrowingFactor; 4 times from 2,048 MB). At 256 MB the thread collected
// fully every 100-350 ms under load, and the collector took a third of the server's CPU. At
// 2,000 MB (1.98 times) the server spends 15-36% less CPU per event and processes 13-52% more
// events a second, for a peak 14-27 MB higher (docs/benchmarks.md, 2026-11-29).
//
// Yet the cap is also what ends a runaway batch before the machine runs out: on a small machine
// (or container) 2,000 MB is more than there is, and the kernel's OOM killer would end the whole
// process instead. So the cap is a quarter of the memory there is (half of what Node gives the
// main thread, which is half), at least 256 MB and at most 2,000 MB: 2,000 from 8,000 MiB up.
import { totalmem } from 'node:os';

const MIN_MB = 256;
const MAX_MB = 2000;

export function backendHeapMb(memoryBytes = availableMemoryBytes(process.constrainedMemory(), totalmem())): number {
  const quarterMb = Math.floor(memoryBytes / 4 / 2 ** 20);
  return Math.min(MAX_MB, Math.max(MIN_MB, quarterMb));
}

/**
 * The machine's memory, or the container's limit when that is lower. Node 20 reports no limit as
 * undefined, Node 22 as 0, and an unlimited cgroup as 2^64 (v2) or about 2^63 (v1).
 */
export function availableMemoryBytes(constrained: number | undefined, total: number): number {
  return constrained !== undefined && constrained > 0 && constrained < total ? constrained : total;
}
