// A statement of more parameters than the SQL clients keep prepared by themselves
// (MAX_PREPARED_PARAMETERS), for the tests of QueryOptions.keepPrepared: a VALUES list of integer
// placeholders, summed. Each test names its column, so that its text is its own.
import { MAX_PREPARED_PARAMETERS } from '../../services/adapters/postgres/preparable.ts';

interface LongValuesList {
  sql: string;
  values: number[];
  /** What the statement answers for `values`. */
  sum: number;
}

export function longValuesList(column: string, count = 70): LongValuesList {
  // A shorter list would be prepared anyway, and a test of the option would pass without it.
  if (count <= MAX_PREPARED_PARAMETERS) throw new Error(`a long list has more than ${MAX_PREPARED_PARAMETERS} values`);
  const list = Array.from({ length: count }, (_, i) => `($${i + 1}::integer)`).join(', ');
  const values = Array.from({ length: count }, (_, i) => i);
  return { sql: `SELECT sum(v)::integer AS ${column} FROM (VALUES ${list}) AS rows (v)`, values, sum: (count * (count - 1)) / 2 };
}
