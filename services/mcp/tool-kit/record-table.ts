// A list of records as a table, in the structured content as in the text. A list of issues or
// log records repeats every field name on every row (`"shortId":`, `"count":` ...), a third of a
// list's tokens; an answer an agent reads in a loop pays that on every call. A table names the
// fields once: `columns` lists those any record has, each row holds one record's values in that
// order, null where the record lacks the field. The schema is always a table, even for no rows or
// one, so a client decodes one shape; the field descriptions stay in the published schema.
import { z } from 'zod';

interface RecordTable<T> {
  columns: Array<keyof T & string>;
  rows: unknown[][];
}

/** The schema of a table of `record`s: the columns are among the record's fields. */
export function tableSchema<Shape extends z.ZodRawShape>(record: z.ZodObject<Shape>, what: string) {
  const fields = Object.keys(record.shape) as Array<keyof Shape & string>;
  const described = fields.map((field) => {
    const description = (record.shape[field] as z.ZodType | undefined)?.description;
    return description ? `${field} (${description})` : field;
  });
  return z
    .object({
      columns: z.array(z.enum(fields as [keyof Shape & string, ...Array<keyof Shape & string>])),
      rows: z.array(z.array(z.unknown())),
    })
    .describe(
      `${what}, as a table: columns names the fields present, each row holds one's values in that order, ` +
        `null where it lacks the field. Fields: ${described.join('; ')}`,
    );
}

/** The records as a table whose columns are the fields any of them has, in first-seen order. */
export function asTable<T extends object>(records: T[]): RecordTable<T> {
  const columns = [...new Set(records.flatMap((record) => Object.keys(record)))] as Array<keyof T & string>;
  return {
    columns,
    rows: records.map((record) => columns.map((column) => (record[column] as unknown) ?? null)),
  };
}
