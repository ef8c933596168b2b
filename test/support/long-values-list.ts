// A statement of more parameters than the SQL clients keep prepared by themselves (64, in
// preparable.ts), for the tests of QueryOptions.keepPrepared: a VALUES list of integer
// placeholders, summed. Each test names its column, so that its text is its own.

interface LongValuesList {
  sql: string;
  values: number[];
  /** What the statement answers for `values`. */
  sum: number;
}

export function longValuesList(column: string, count = 70): LongValuesList {
  const list = Array.from({ length: count }, (_, i) => `($${i + 1}::integer)`).join(', ');
  const values = Array.from({ length: count }, (_, i) => i);
  return { sql: `SELECT sum(v)::integer AS ${column} FROM (VALUES ${list}) AS rows (v)`, values, sum: (count * (count - 1)) / 2 };
}
