import { describe, expect, it } from 'vitest';
import { UserInputError } from '../errors.ts';
import { parseSearch, SearchSyntaxError, type SearchSpec } from './search-syntax.ts';

const SPEC: SearchSpec = {
  keys: {
    is: { values: ['open', 'closed'], negatable: true },
    tag: { negatable: true },
    firstRelease: { aliases: ['first-release'], negatable: false },
  },
  refused: { release: 'use firstRelease:' },
};

const parse = (query: string) => parseSearch(query, SPEC);

/** The error parsing `query` throws: it must be a SearchSyntaxError naming `token`. */
function failure(query: string, token: string): SearchSyntaxError {
  try {
    parse(query);
  } catch (error) {
    expect(error).toBeInstanceOf(SearchSyntaxError);
    expect(error).toBeInstanceOf(UserInputError);
    const e = error as SearchSyntaxError;
    expect(e.token).toBe(token);
    expect(e.message).toContain(JSON.stringify(token));
    return e;
  }
  throw new Error(`${query} parsed`);
}

describe('parseSearch', () => {
  it('reads key:value, !key:value, quoted values and free text, in order', () => {
    expect(parse('is:open !tag:a  crash tag:"two words" "x: y"')).toEqual([
      { kind: 'filter', key: 'is', value: 'open', negated: false, token: 'is:open' },
      { kind: 'filter', key: 'tag', value: 'a', negated: true, token: '!tag:a' },
      { kind: 'text', value: 'crash', token: 'crash' },
      { kind: 'filter', key: 'tag', value: 'two words', negated: false, token: 'tag:"two words"' },
      { kind: 'text', value: 'x: y', token: '"x: y"' },
    ]);
  });

  it('is empty for an empty or blank query', () => {
    expect(parse('')).toEqual([]);
    expect(parse(' \t ')).toEqual([]);
  });

  it('matches keys and fixed values without regard to case, and answers with the spec spelling', () => {
    expect(parse('IS:Closed first-release:1.0 FIRSTRELEASE:2.0').map((t) => t.kind === 'filter' && [t.key, t.value])).toEqual([
      ['is', 'closed'],
      ['firstRelease', '1.0'],
      ['firstRelease', '2.0'],
    ]);
  });

  it('keeps values as typed: colons, escaped quotes and backslashes', () => {
    expect(parse('tag:a:b tag:"say \\"hi\\" \\\\ ok"').map((t) => t.value)).toEqual(['a:b', 'say "hi" \\ ok']);
  });

  it('leaves text that only looks like a key alone: "TypeError: x", !word, a leading digit', () => {
    expect(parse('TypeError: x !important 1:2').map((t) => [t.kind, t.value])).toEqual([
      ['text', 'TypeError:'],
      ['text', 'x'],
      ['text', '!important'],
      ['text', '1:2'],
    ]);
  });

  it('refuses -key:value for a known key, pointing to !key:value; -word stays text', () => {
    expect(failure('x -is:open', '-is:open').message).toContain('to exclude, write !is:open');
    expect(parse('-rf -other:1').map((t) => t.value)).toEqual(['-rf', '-other:1']);
    // A key that cannot be negated is not pointed to a ! it would refuse.
    expect(failure('-first-release:1.0', '-first-release:1.0').message).toContain('firstRelease: cannot be excluded');
  });

  it('refuses an unknown key, naming it, listing the keys and how to search for the text instead', () => {
    const e = failure('crash foo:bar', 'foo:bar');
    expect(e.message).toContain('unknown key "foo"');
    expect(e.message).toContain('is, tag, firstRelease');
    expect(e.message).toContain('"\\"foo:bar\\""');
    failure('!foo:bar', '!foo:bar');
    failure('foo:"a b"', 'foo:"a b"');
  });

  it('refuses a key the spec refuses, with its reason', () => {
    expect(failure('release:1.0', 'release:1.0').message).toContain('use firstRelease:');
  });

  it('refuses a key named like an Object member as unknown, not with that member for a reason', () => {
    for (const key of ['constructor', 'toString', 'hasOwnProperty']) {
      const e = failure(`${key}:x`, `${key}:x`);
      expect(e.message).toContain(`unknown key "${key}"`);
      expect(e.message).not.toContain('native code');
    }
  });

  it('refuses a value the key does not take, listing those it does', () => {
    expect(failure('is:bogus', 'is:bogus').message).toContain('is: takes one of open, closed');
    failure('!is:"open "', '!is:"open "');
  });

  it('refuses an empty value', () => {
    expect(failure('is: crash', 'is:').message).toContain('needs a value, e.g. is:open');
    expect(failure('tag:""', 'tag:""').message).toContain('tag: needs a value');
    failure('x !tag:', '!tag:');
    failure('""', '""');
  });

  it('refuses negation where the key does not allow it', () => {
    expect(failure('!firstRelease:1.0', '!firstRelease:1.0').message).toContain('cannot be negated');
  });

  it('refuses an unterminated quote, naming the token from its start', () => {
    expect(failure('crash "connection reset', '"connection reset').message).toContain('unterminated quote');
    failure('is:open tag:"a b', 'tag:"a b');
    failure('tag:"a \\"', 'tag:"a \\"');
  });

  it('refuses text glued to a closing quote', () => {
    expect(failure('tag:"a b"c d', 'tag:"a b"c').message).toContain('space after the closing quote');
    failure('"a"b', '"a"b');
  });
});
