import { describe, expect, it } from 'vitest';
import { logSearch } from './log-search.ts';
import { SearchSyntaxError } from './search-syntax.ts';

/** The error `query` throws: a SearchSyntaxError naming `token`. */
function failure(query: string, token: string): SearchSyntaxError {
  try {
    logSearch(query);
  } catch (error) {
    expect(error).toBeInstanceOf(SearchSyntaxError);
    expect((error as SearchSyntaxError).token).toBe(token);
    return error as SearchSyntaxError;
  }
  throw new Error(`${query} parsed`);
}

describe('logSearch', () => {
  it('reads level, trace, environment, free text and every other key as an attribute', () => {
    expect(
      logSearch('level:WARNING trace:4BF92F3577B34DA6A3CE929D0E0E4736 env:prod "payment failed" user.id:42 route:"/a b"'),
    ).toEqual({
      levels: ['warn'],
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      environment: 'prod',
      text: 'payment failed',
      attributes: { 'user.id': '42', route: '/a b' },
    });
    expect(logSearch('')).toEqual({});
  });

  it('compares numbers with >, <, >= and <=', () => {
    expect(logSearch('ms:>250 ms:<=1e3 retries:>=2 delta:<-0.5')).toEqual({
      comparisons: [
        { key: 'ms', operator: '>', value: 250 },
        { key: 'ms', operator: '<=', value: 1000 },
        { key: 'retries', operator: '>=', value: 2 },
        { key: 'delta', operator: '<', value: -0.5 },
      ],
    });
  });

  it('takes keys named like Object members as attributes, each once', () => {
    expect(logSearch('constructor:a toString:b hasOwnProperty:c')).toEqual({
      attributes: { constructor: 'a', toString: 'b', hasOwnProperty: 'c' },
    });
    expect(failure('constructor:a constructor:b', 'constructor:b').message).toContain('given twice');
  });

  it('takes a quoted value as the text itself, not a comparison', () => {
    expect(logSearch('op:">=" ms:">5"')).toEqual({ attributes: { op: '>=', ms: '>5' } });
  });

  it('keeps an unknown word ending in a colon as text, as the issue search does', () => {
    expect(logSearch('TypeError: boom')).toEqual({ text: 'TypeError: boom' });
  });

  it('names the token and says what to write for each bad query', () => {
    expect(failure('ms:>fast', 'ms:>fast').message).toContain('ms:>250');
    expect(failure('trace:abc', 'trace:abc').message).toContain('32 hex characters');
    expect(failure('level:loud', 'level:loud').message).toContain('trace, debug, info, warn, error, fatal');
    expect(failure('level:info level:error', 'level:error').message).toContain('also level:info');
    expect(failure('!user.id:1', '!user.id:1').message).toContain('cannot be negated');
    expect(failure('a:1 a:2', 'a:2').message).toContain('given twice');
    failure('route:"open', 'route:"open');
  });

  it('refuses what search_logs would, so a search copied as a call runs there too', () => {
    const many = Array.from({ length: 21 }, (_, i) => `k${i}:v`).join(' ');
    expect(failure(many, 'k20:v').message).toContain('at most 20 attribute filters');
    const compared = Array.from({ length: 21 }, (_, i) => `k${i}:>1`).join(' ');
    expect(failure(compared, 'k20:>1').message).toContain('at most 20 comparisons');
    expect(logSearch(Array.from({ length: 20 }, (_, i) => `k${i}:v`).join(' ')).attributes).toHaveProperty('k19', 'v');
    expect(failure(`${'word '.repeat(41)}`, 'word').message).toContain('keep it to 200');
    expect(failure(`user:${'x'.repeat(501)}`, `user:${'x'.repeat(55)}`).message).toContain('its value 500');
    expect(failure(`env:${'e'.repeat(201)}`, `env:${'e'.repeat(56)}`).message).toContain('at most 200 characters');
  });
});
