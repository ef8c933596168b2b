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
    expect(classifyClickHouseError(withCode('252'))).toBeInstanceOf(UnavailableError);
  });

  it('leaves syntax and data errors as they are', () => {
    for (const code of ['62', '27', '117', '53', '6']) expect(isTransientClickHouseError(withCode(code)), code).toBe(false);
    const syntax = withCode('62', 'Syntax error');
    expect(classifyClickHouseError(syntax)).toBe(syntax);
  });
});
