// Column values for the rows the ClickHouse stores insert, checked when a caller
// hands them over: a value the server would refuse fails that caller's call alone, instead of
// the batched INSERT it would have shared with other callers' rows.
import { wellFormed } from './clickhouse-sql.ts';

export const UINT8_MAX = 255;
export const UINT32_MAX = 4_294_967_295;

/** Text as valid UTF-8 (see wellFormed). */
export function text(value: string): string {
  return wellFormed(value);
}

export function nullableText(value: string | null): string | null {
  return value === null ? null : wellFormed(value);
}

/** An integer within an unsigned column's range. */
export function unsigned(value: number, max: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new Error(`${what} must be an integer from 0 to ${max}`);
  return value;
}
