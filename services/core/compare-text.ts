/**
 * Code-unit order, the same in every process (localeCompare's follows the locale): for sorting
 * rows into one order across processes (lock order), and ASCII keys into S3's byte order.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
