import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.ts';
import { classifyPgError, isTransientPgError } from './pg-errors.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('Postgres error classes', () => {
  it('treats the server’s condition as unavailable', () => {
    for (const code of ['08006', '40P01', '40001', '53300', '57P01', '57014', '58030', '25006', '42P01', 'ECONNREFUSED']) {
      expect(isTransientPgError(withCode(code)), code).toBe(true);
    }
    expect(isTransientPgError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientPgError(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('treats a prepared statement whose table changed shape as transient, and nothing else of its class', () => {
    const stale = Object.assign(withCode('0A000', 'cached plan must not change result type'), {
      routine: 'RevalidateCachedQuery',
    });
    expect(isTransientPgError(stale)).toBe(true);
    expect(isTransientPgError(withCode('0A000', 'cached plan must not change result type'))).toBe(false);
    expect(isTransientPgError(Object.assign(withCode('0A000'), { routine: 'transformSelectStmt' }))).toBe(false);
  });

  it('leaves the statement’s own faults as they are', () => {
    for (const code of ['23505', '22P02', '42601', '42703', '25P02'])
      expect(isTransientPgError(withCode(code)), code).toBe(false);
    const duplicate = withCode('23505', 'duplicate key');
    expect(classifyPgError(duplicate)).toBe(duplicate);
  });

  it('wraps a transient error, keeping the driver’s error as the cause and out of the message', () => {
    const lost = withCode('57P01', 'terminating connection due to administrator command');
    const classified = classifyPgError(lost) as UnavailableError;
    expect(classified).toBeInstanceOf(UnavailableError);
    expect(classified.cause).toBe(lost);
    expect(classified.message).not.toContain('administrator');
  });
});
