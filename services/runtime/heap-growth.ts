// V8 lets a heap grow past what its last full collection kept by a factor that follows the
// heap's size limit: up to 4 from 2 GiB up, falling to 1.3 at 256 MB (V8's
// MemoryController::MaxGrowingFactor). A distributed role in a pod with a memory limit has a
// small heap (the operator gives it half the limit, operator/desired/node-heap.ts), so it would
// collect more than twice as often as on a large machine, for the same live data: with a 512 MB
// heap the dispatcher spent 0.66-0.83 core-ms per event against 0.55-0.59 (docs/benchmarks.md,
// "a heap sized from the pod's limit"). So a role with a small heap grows it as V8 would on a large machine. The
// heap's limit still bounds it: between collections V8 lets the heap reach at most halfway from
// its size to the limit, so it collects more often as it nears the limit, and ends the process at
// the limit as before.
import v8 from 'node:v8';

/** From this heap limit up, V8's own factor can already reach 4. */
const LARGE_HEAP_BYTES = 2 * 2 ** 30;
/** A factor of 4, V8's highest. */
export const SMALL_HEAP_GROWING_PERCENT = 300;

/** The `--heap-growing-percent` a process with this heap limit runs with, or undefined to leave V8's own. */
export function heapGrowingPercentFor(heapLimitBytes: number): number | undefined {
  return heapLimitBytes < LARGE_HEAP_BYTES ? SMALL_HEAP_GROWING_PERCENT : undefined;
}

/**
 * Sets V8's heap growing factor for the whole process (every thread) when its heap is small.
 * V8 reads the flag at each collection, so setting it once the process runs takes effect.
 */
export function growSmallHeapAsALargeOne(heapLimitBytes = v8.getHeapStatistics().heap_size_limit): number | undefined {
  const percent = heapGrowingPercentFor(heapLimitBytes);
  if (percent !== undefined) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
