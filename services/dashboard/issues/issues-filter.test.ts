import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../core/errors.ts';
import { SearchSyntaxError } from '../../core/search/search-syntax.ts';
import { filterFields, filterParams, issueQueryOf, readListFilter } from './issues-filter.ts';

const NOW = new Date('2026-01-02T12:00:00Z');
const read = (query: string) => readListFilter(new URLSearchParams(query));

describe('the Issues page filter', () => {
  it('reads every field of the address, defaults left out', () => {
    expect(read('')).toEqual({ project: '', query: '', sort: 'lastSeen' });
    expect(
      read('project=web&status=resolved&level=error&environment=prod&release=1.0&window=24h&query=x&sort=events&cursor=c'),
    ).toEqual({
      project: 'web',
      status: 'resolved',
      level: 'error',
      environment: 'prod',
      release: '1.0',
      window: '24h',
      query: 'x',
      sort: 'events',
      cursor: 'c',
    });
  });

  it('refuses a value that is none of the choices, naming them', () => {
    expect(() => read('sort=oldest')).toThrow('sort "oldest" is not one of lastSeen, firstSeen, events, users');
    expect(() => read('window=2y')).toThrow(/window "2y" is not one of 1h, 24h, 7d, 14d, 30d/);
    expect(() => read(`query=${'x'.repeat(201)}`)).toThrow(UserInputError);
  });

  it('makes the IssueQuery the search and the form filters say together', () => {
    const filter = read('level=error&environment=prod&release=1.0&window=1h&query=!environment:staging TypeError');
    expect(issueQueryOf(filter, 7, NOW)).toEqual({
      projectId: 7,
      status: 'unresolved',
      level: 'error',
      text: 'TypeError',
      environment: 'prod',
      firstRelease: '1.0',
      exclude: { environments: ['staging'] },
      lastSeenSince: new Date('2026-01-02T11:00:00Z'),
    });
    // The query's is: term decides when no tab was chosen.
    expect(issueQueryOf(read('query=is:ignored'), 7, NOW).status).toBe('ignored');
  });

  it('refuses a bad search with the token, and a form filter the search contradicts', () => {
    expect(() => issueQueryOf(read('query=level:loud'), 1, NOW)).toThrow(SearchSyntaxError);
    expect(() => issueQueryOf(read('query=level:loud'), 1, NOW)).toThrow('"level:loud"');
    expect(() => issueQueryOf(read('environment=prod&query=environment:dev'), 1, NOW)).toThrow(
      'the filter says environment "prod" but the search says environment:dev',
    );
    expect(() => issueQueryOf(read('status=resolved&query=is:ignored'), 1, NOW)).toThrow(UserInputError);
  });

  it('writes the filter back as GET parameters, a change starting from the first page', () => {
    const filter = read('project=web&query=a b&sort=lastSeen&cursor=c');
    expect(filterParams(filter).toString()).toBe('project=web&query=a+b');
    expect(filterParams(filter, { status: 'all' }).toString()).toBe('project=web&status=all&query=a+b');
    expect(filterParams(filter, { cursor: 'next' }).toString()).toBe('project=web&query=a+b&cursor=next');
    expect(filterFields(read('project=web&sort=users'))).toEqual([
      ['project', 'web'],
      ['sort', 'users'],
    ]);
  });
});
