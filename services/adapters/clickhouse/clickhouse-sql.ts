// The one place the ClickHouse adapters turn values into SQL text. ClickHouse 18.16 has no
// server-side parameters (`query_params` is an unknown setting there), so every value in a
// query is a literal escaped here; rows themselves go in as JSONEachRow or TabSeparated
// (tab-separated.ts) and never pass through.
// `sql` is a tagged template: interpolated values are quoted, interpolated `Sql` fragments are not.

/** A value that may be written into a query as a literal. */
export type SqlValue = string | number | bigint | boolean | null | readonly SqlValue[];

/** A piece of SQL text that is already safe: built only by `sql`, `identifier`, `join` and `raw`. */
export class Sql {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** Builds a fragment: each `${value}` becomes a quoted literal, each `${fragment}` its text. */
export function sql(strings: TemplateStringsArray, ...values: ReadonlyArray<SqlValue | Sql>): Sql {
  let text = strings[0]!;
  values.forEach((value, i) => {
    text += (value instanceof Sql ? value.text : quote(value)) + strings[i + 1]!;
  });
  return new Sql(text);
}

/** Joins fragments with a separator (`' AND '`, `', '`). */
export function join(fragments: readonly Sql[], separator: string): Sql {
  return new Sql(fragments.map((f) => f.text).join(separator));
}

/** Trusted SQL text written in this code base (a column list), never input. */
export function raw(text: string): Sql {
  return new Sql(text);
}

/** A database, table or column name, backquoted. */
export function identifier(name: string): Sql {
  if (name.length === 0 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new Error('a ClickHouse identifier must be non-empty and free of control characters');
  }
  return new Sql('`' + wellFormed(name).replace(/[\\`]/g, (c) => `\\${c}`) + '`');
}

/** The literal for a value, as ClickHouse (18.16 and current) parses it back to the same value. */
export function quote(value: SqlValue): string {
  if (value === null) return 'NULL';
  switch (typeof value) {
    case 'string':
      return quoteString(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`cannot write ${value} into a ClickHouse query`);
      // Parenthesized so that `a - ${-1}` cannot read as a comment (`a --1`).
      return value < 0 ? `(${String(value)})` : String(Object.is(value, -0) ? 0 : value);
    case 'bigint':
      return value < 0n ? `(${value})` : String(value);
    case 'boolean':
      // 18.16 has no Bool type; 1 and 0 compare with UInt8 flags and with `true`/`false` on 26.x.
      return value ? '1' : '0';
    case 'object':
      if (Array.isArray(value)) return `[${value.map(quote).join(', ')}]`;
      break;
  }
  throw new Error(`cannot write a value of type ${typeof value} into a ClickHouse query`);
}

/**
 * Backslash-escapes the quote and the backslash, and writes control characters as \xHH so that
 * the query text stays printable (a raw NUL would end the string in some tools). Everything else
 * goes as UTF-8, which ClickHouse keeps byte for byte.
 */
function quoteString(value: string): string {
  return `'${wellFormed(value).replace(/[\\'\u0000-\u001f\u007f]/g, escapeChar)}'`;
}

function escapeChar(c: string): string {
  if (c === '\\' || c === "'") return `\\${c}`;
  return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/**
 * Text that encodes to valid UTF-8: an unpaired surrogate (possible in a JS string, e.g. from
 * JSON.parse('"\\ud800"')) becomes U+FFFD. ClickHouse refuses such an escape in JSONEachRow,
 * which would fail a whole batch, and Postgres stores the same replacement character.
 */
export function wellFormed(value: string): string {
  return value.isWellFormed() ? value : value.toWellFormed();
}
