// How the ClickHouse stores keep the first write of an id, as the SQL stores do with
// ON CONFLICT DO NOTHING: ReplacingMergeTree keeps the row with the largest version, so each
// INSERT gets a version that shrinks with time, and duplicates inside one INSERT (which share a
// version) are dropped before it is sent.

/**
 * Versions that decrease with every INSERT: the largest safe integer minus a microsecond clock
 * that never repeats in this process. Across processes it follows wall clocks, which is enough
 * for redelivered duplicates (they are the same event, written a moment apart).
 */
export class FirstWriteVersions {
  private last = 0;

  next(now: number = Date.now()): number {
    this.last = Math.max(Math.floor(now * 1000), this.last + 1);
    return Number.MAX_SAFE_INTEGER - this.last;
  }
}

/** The first row of each key, in their order. */
export function firstOfEach<T>(rows: readonly T[], key: (row: T) => string): T[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const k = key(row);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
