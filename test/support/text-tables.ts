// The reverse of services/mcp/text-tables.ts, written apart from it so a test compares the
// text half with the structured half without trusting the code under test: every
// {"columns": [...], "rows": [...]} back into records, a null cell being a field the record lacks.

export function fromTables(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromTables);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 2 && Array.isArray(record.columns) && Array.isArray(record.rows)) {
    const columns = record.columns as string[];
    return (record.rows as unknown[][]).map((row) =>
      Object.fromEntries(columns.flatMap((column, i) => (row[i] === null ? [] : [[column, fromTables(row[i])]]))),
    );
  }
  return Object.fromEntries(keys.map((key) => [key, fromTables(record[key])]));
}
