// The cursor a log search hands out (search_logs, the read API): the store's cursor, after the
// start of the window its first page searched. A window of the last N minutes is computed again
// at every call, so a page read later started later: the records between the two starts were
// skipped without a word, and the last page said there were no more. Carried in the cursor, the
// start stays where the first page put it.

/** The store's cursor with the window's start, in milliseconds. */
export function windowedCursor(sinceMs: number, storeCursor: string): string {
  return `${Math.floor(sinceMs)}~${storeCursor}`;
}

/** The window's start and the store's cursor; a cursor from before starts were carried is the store's alone. */
export function readWindowedCursor(cursor: string): { sinceMs?: number; store: string } {
  const match = /^(\d{1,15})~(.+)$/.exec(cursor);
  return match ? { sinceMs: Number(match[1]), store: match[2]! } : { store: cursor };
}

/**
 * Where a later page's window starts, in the caller's unit: the start its cursor carried, no
 * earlier than retention keeps (`oldest`); undefined when it carried none, or one after `now`
 * (not a page's), and the window is computed afresh.
 */
export function pagedWindowStart(carried: number | undefined, now: number, oldest: number): number | undefined {
  return carried !== undefined && carried <= now ? Math.max(oldest, carried) : undefined;
}
