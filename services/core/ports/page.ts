// Keyset pagination shared by every list: stores return a page and an opaque cursor for the
// next one. The cursor is the sort key of the last item, base64url JSON, validated on the way in.
import { UserInputError } from '../errors.ts';
import { POSTGRES_INTEGER_MAX } from '../row-id.ts';

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export type CursorKey = Array<string | number>;

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * What a part of a cursor holds. Beyond its JSON type, each is checked for what the stores cast
 * it to, so a cursor made up by hand is refused here instead of failing the query with a 500:
 * `time` an instant as the stores write them, `int4` a Postgres integer, `integer` a safe integer.
 */
type CursorPart = 'string' | 'time' | 'int4' | 'integer';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

const PART_CHECKS: Record<CursorPart, (part: unknown) => boolean> = {
  string: (part) => typeof part === 'string',
  time: (part) => typeof part === 'string' && INSTANT.test(part) && !Number.isNaN(Date.parse(part)) && validDate(part),
  int4: (part) =>
    Number.isInteger(part) && (part as number) >= -POSTGRES_INTEGER_MAX - 1 && (part as number) <= POSTGRES_INTEGER_MAX,
  integer: (part) => Number.isSafeInteger(part),
};

export function decodeCursor(cursor: string, shape: CursorPart[]): CursorKey {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(key) || key.length !== shape.length || key.some((part, i) => !PART_CHECKS[shape[i]!](part))) {
    throw invalidCursor();
  }
  return key as CursorKey;
}

/** A cursor's parts as they are, unchecked, for telling which order made it; undefined when it is no array. */
export function peekCursor(cursor: string): unknown[] | undefined {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(key) ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Date.parse takes year 0000 and rolls 2026-02-30 over to March; Postgres refuses both. */
function validDate(instant: string): boolean {
  const [year, month, day] = instant.slice(0, 10).split('-').map(Number) as [number, number, number];
  // (Date.UTC reads years 1-99 as 1901-1999, which have the same month lengths.)
  return year >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function invalidCursor(): UserInputError {
  return new UserInputError('invalid cursor: pass back the nextCursor value of the previous page unchanged');
}
