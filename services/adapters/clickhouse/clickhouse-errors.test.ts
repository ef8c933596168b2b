import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.ts';
import { classifyClickHouseError, isTransientClickHouseError } from './clickhouse-errors.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('ClickHouse error classes', () => {
  it('treats overload, missing tables and lost connections as unavailable', () => {
    for (const code of ['252', '241', '243', '164', '81', '60', '159', 'ECONNREFUSED', 'ECONNRESET']) {
      expect(isTransientClickHouseError(withCode(code)), code).toBe(true);
    }
    expect(isTransientClickHouseError(new Error('Timeout error.'))).toBe(true);
    // An overloaded or restarting server's refusals, and a network gone: records were dropped as bad after three tries.
    for (const code of ['439', '173', '394', '236', '201', '285', '279', '745', 'ENETUNREACH', 'ECONNABORTED', 'EADDRNOTAVAIL']) {
      expect(isTransientClickHouseError(withCode(code)), code).toBe(true);
    }
    expect(classifyClickHouseError(withCode('252'))).toBeInstanceOf(UnavailableError);
  });

  it('reads the code from the message of a server that does not name it (18.16), and a proxy page as unavailable', () => {
    const old = (code: number, text: string) =>
      new Error(`Code: ${code}, e.displayText() = DB::Exception: ${text}, e.what() = DB::Exception`);
    expect(
      isTransientClickHouseError(old(252, 'Too many parts (300). Merges are processing significantly slower than inserts.')),
    ).toBe(true);
    expect(isTransientClickHouseError(old(81, "Database errata doesn't exist"))).toBe(true);
    expect(isTransientClickHouseError(old(62, 'Syntax error: failed at position 1 (line 1, col 1): timeout'))).toBe(false);
    expect(isTransientClickHouseError(new Error('<html><head><title>502 Bad Gateway</title></head></html>'))).toBe(true);
    expect(isTransientClickHouseError(new Error('Cannot parse input: expected a number'))).toBe(false);
  });

  it('leaves syntax and data errors as they are', () => {
    for (const code of ['62', '27', '117', '53', '6']) expect(isTransientClickHouseError(withCode(code)), code).toBe(false);
    const syntax = withCode('62', 'Syntax error');
    expect(classifyClickHouseError(syntax)).toBe(syntax);
  });
});
