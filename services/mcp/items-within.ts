// How much of a page fits a character budget: search_logs (its answer) and the REST log page
// (its response) both cut a page of records to the ones that fit, then ask the store again for
// exactly that many, so the cursor goes on after the last one sent.

/** How many of the items, from the first, add up to at most `budget` by `sizeOf`; at least one. */
export function itemsWithin<T>(items: T[], sizeOf: (item: T) => number, budget: number): number {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += sizeOf(items[i]!);
    if (used > budget) return Math.max(1, i);
  }
  return items.length;
}
