// Counts in sentences read the same everywhere in the dashboard: thousands separated, the noun
// agreeing with the number.
import { describe, expect, it } from 'vitest';
import { formatCount, formatQuantity } from './formats.ts';

describe('formatCount and formatQuantity', () => {
  it('separates thousands and makes the noun agree', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatQuantity(0, 'event')).toBe('0 events');
    expect(formatQuantity(1, 'issue')).toBe('1 issue');
    expect(formatQuantity(12_345, 'log record')).toBe('12,345 log records');
  });
});
