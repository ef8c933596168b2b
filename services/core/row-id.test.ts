import { describe, expect, it } from 'vitest';
import { isRowId, POSTGRES_INTEGER_MAX } from './row-id.ts';

describe('isRowId', () => {
  it('takes whole numbers from 1 to the largest Postgres integer', () => {
    expect([1, 42, POSTGRES_INTEGER_MAX].map(isRowId)).toEqual([true, true, true]);
  });

  it('refuses zero, negatives, fractions, NaN and numbers past a Postgres integer', () => {
    expect([0, -1, 1.5, Number.NaN, POSTGRES_INTEGER_MAX + 1, 2 ** 53].map(isRowId)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
