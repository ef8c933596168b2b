// How much heap the dispatcher's cache of parsed source maps may hold by default: 256 MiB, or
// three-eighths of the process's heap limit when that is less. Node sizes the heap from the
// memory it can see (half of a pod's limit, at least 256 MB), so in a pod with a 512Mi limit
// the heap is about 260 MB, and a 256 MiB cache of large maps would leave the pipeline no room:
// the process would end on V8's heap limit and restart into the same maps. Three-eighths is what
// the standalone backend thread gives its cache at its smallest heap (96 MiB of 256 MB).
import { getHeapStatistics } from 'node:v8';

const MAX_BYTES = 256 * 1024 * 1024;

export function sourceMapCacheBudget(heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  return Math.min(MAX_BYTES, Math.floor((heapLimitBytes * 3) / 8));
}
