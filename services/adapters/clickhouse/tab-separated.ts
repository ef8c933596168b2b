// Rows as TabSeparated text, for the events INSERT. JSONEachRow made the client re-escape every
// 9 KB payload (itself JSON) into a JSON string: about 60 µs per event on the dispatcher's main
// thread, against about 20 µs as TabSeparated (docs/benchmarks.md). Text rather than RowBinary
// because chdb, which the unit suite runs these stores on, reads every INSERT body as UTF-8.
// TabSeparated's escaping, read the same by 18.16 and current servers: a backslash starts an
// escape sequence, so it is doubled; tab and newline end a field and a row; `\N` is NULL.
import { Readable } from 'node:stream';

/** The columns an INSERT fills, in order, and each row's line (ending in a newline). */
export interface TabSeparatedRows<Row> {
  columns: [string, ...string[]];
  line(row: Row): string;
}

/** One column: its name, and a row's value in it as a TabSeparated field (tsvText and the others below). */
type TabSeparatedColumn<Row> = readonly [name: string, field: (row: Row) => string];

/** The INSERT's columns and lines from one list, so a column's name and its field cannot fall out of step. */
export function tabSeparatedRows<Row>(columns: [TabSeparatedColumn<Row>, ...TabSeparatedColumn<Row>[]]): TabSeparatedRows<Row> {
  const [[firstName, first], ...rest] = columns;
  return {
    columns: [firstName, ...rest.map(([name]) => name)],
    line(row) {
      let line = first(row);
      for (const [, field] of rest) line += `\t${field(row)}`;
      return `${line}\n`;
    },
  };
}

/** The characters that would end a field or a row, or that servers read as escapes, spelled as escapes. */
const CONTROLS: ReadonlyArray<readonly [string, string]> = [
  ['\t', '\\t'],
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\0', '\\0'],
  ['\b', '\\b'],
  ['\f', '\\f'],
];

/**
 * Any text as one field. Checked with `includes` on the original string first: a payload has
 * no raw control characters (JSON escapes them), and six `includes` cost next to nothing, where
 * one regular expression over 9 KB costs as much as the doubling of backslashes itself.
 */
export function tsvText(value: string): string {
  const hasControl = CONTROLS.some(([c]) => value.includes(c));
  let out = value.includes('\\') ? value.replaceAll('\\', '\\\\') : value;
  if (hasControl) for (const [c, escaped] of CONTROLS) out = out.replaceAll(c, escaped);
  return out;
}

export function tsvNullableText(value: string | null): string {
  return value === null ? '\\N' : tsvText(value);
}

/**
 * Whole seconds (0 to 2^32 - 1) as a DateTime field: the epoch number, zero-padded to ten digits
 * because servers read a field as a number only when its fifth character is a digit. Not
 * `YYYY-MM-DD hh:mm:ss`: 18.16 reads a year after 2105 in that form as 1970.
 */
export function tsvDateTime(seconds: number): string {
  return String(seconds).padStart(10, '0');
}

/** The INSERT's body: the client sends a raw format only from a byte stream. */
export function tabSeparatedBody(lines: string[]): Readable {
  return Readable.from([Buffer.from(lines.join(''), 'utf8')], { objectMode: false });
}
