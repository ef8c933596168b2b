// Row ids (issues, rules, channels, short numbers) are Postgres `integer` columns: a number
// beyond their range names no row, and binding it fails the query with a 500. So every id taken
// from input is checked here first, and answered as "not found" or "not an id".

/** The largest Postgres `integer`; the smallest is -POSTGRES_INTEGER_MAX - 1. */
export const POSTGRES_INTEGER_MAX = 2_147_483_647;

/** Whether `value` can be a row id: a whole number from 1 to POSTGRES_INTEGER_MAX. */
export function isRowId(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1 && value <= POSTGRES_INTEGER_MAX;
}
