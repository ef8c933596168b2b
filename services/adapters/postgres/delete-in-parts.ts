// A deleted project can leave millions of rows behind. One DELETE over all of them could outrun
// the statement timeout every time it is tried, so they go in parts, each a statement (or a
// transaction) of its own; a failure between parts leaves the rest for the call's repeat.

/**
 * A DELETE of at most `rows` of `table`'s rows matching `where`. Rows are picked by ctid, so the
 * part reads no index beyond the one `where` uses.
 */
export function deletePartSql(table: string, where: string, rows: number): string {
  return `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ${rows}))`;
}

/** Runs `deletePart` until a part deletes fewer than `rows`: the last part found the rest. */
export async function deleteWhileFull(rows: number, deletePart: () => Promise<number>): Promise<void> {
  while ((await deletePart()) === rows);
}
