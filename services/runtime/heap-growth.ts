// V8 lets a heap grow past what its last full collection kept by a factor it chooses between 1.1
// and a ceiling that follows the heap's size limit: 4 from an old generation of 2 GiB up, falling
// to 1.3 at 256 MB (V8's MemoryController::MaxGrowingFactor). Node sizes the heap from the memory
// it can see, half of a pod's memory limit (a 1 GiB limit gives 512 MB; at least 256 MB, at most
// 2 GiB, or 4 GiB with 16 GiB or more), so a distributed role in a pod collects more often than
// on a large machine, for the same live data: in a model of a 1 GiB pod the dispatcher spent
// 0.79-0.82 core-ms per event with V8's own factor and 0.67-0.68 with 4 (docs/benchmarks.md, "a
// heap sized from the pod's limit"; the rest of the gap to a large heap's 0.54-0.59 is the young
// generation, operator/desired/node-options.ts). So a role whose old generation is under 2 GiB
// fixes the factor at 4. The limit still bounds the heap: between collections V8 lets it grow at
// most halfway from its size to the limit, and ends the process at the limit as before. The cost:
// the fixed factor also replaces V8's memory-saving modes (the idle memory reducer, the heap near
// its limit), so an idle role can give back less of its peak heap (read in V8's code, not
// measured). ERRATA_HEAP_GROWING_PERCENT=0 leaves V8's own factor.
import v8 from 'node:v8';

/**
 * From this heap limit up, V8's own ceiling is already 4: an old generation of 2 GiB, which Node
 * gives 16 MiB semi-spaces (three of them in the limit).
 */
const LARGE_HEAP_BYTES = (2048 + 48) * 2 ** 20;
/** A factor of 4, V8's ceiling for a large heap. */
export const SMALL_HEAP_GROWING_PERCENT = 300;

/**
 * The `--heap-growing-percent` a role runs with, or undefined to leave V8's own: the configured
 * one (0 for V8's own), else 300 under an old generation of 2 GiB.
 */
export function heapGrowingPercentFor(heapLimitBytes: number, configured: number | undefined): number | undefined {
  if (configured !== undefined) return configured > 0 ? configured : undefined;
  return heapLimitBytes < LARGE_HEAP_BYTES ? SMALL_HEAP_GROWING_PERCENT : undefined;
}

/**
 * Sets V8's heap growing percent for the whole process (every thread), and returns it. V8 reads
 * the flag at each collection, so setting it once the process runs takes effect
 * (heap-growth.test.ts counts the collections).
 */
export function applyHeapGrowingPercent(
  configured: number | undefined,
  heapLimitBytes = v8.getHeapStatistics().heap_size_limit,
): number | undefined {
  const percent = heapGrowingPercentFor(heapLimitBytes, configured);
  if (percent !== undefined) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
