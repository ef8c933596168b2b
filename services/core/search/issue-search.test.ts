import { describe, expect, it } from 'vitest';
import { UserInputError } from '../errors.ts';
import { issueFilter } from './issue-search.ts';
import { SearchSyntaxError } from './search-syntax.ts';

/** The SearchSyntaxError `query` raises: it must name `token`. */
function failure(query: string, token: string): SearchSyntaxError {
  try {
    issueFilter(query);
  } catch (error) {
    expect(error).toBeInstanceOf(SearchSyntaxError);
    expect((error as SearchSyntaxError).token).toBe(token);
    expect((error as Error).message).toContain(JSON.stringify(token));
    return error as SearchSyntaxError;
  }
  throw new Error(`${query} parsed`);
}

describe('issueFilter', () => {
  it('is unresolved issues when nothing is given, as before the syntax', () => {
    expect(issueFilter(undefined)).toEqual({ status: 'unresolved' });
    expect(issueFilter('')).toEqual({ status: 'unresolved' });
  });

  it('keeps free text free text: the words, joined by one space, searched in title and culprit', () => {
    expect(issueFilter('connection  refused')).toEqual({ status: 'unresolved', text: 'connection refused' });
    expect(issueFilter('TypeError: x is undefined')).toEqual({ status: 'unresolved', text: 'TypeError: x is undefined' });
    expect(issueFilter('"a:  b" level:error c')).toEqual({ status: 'unresolved', level: 'error', text: 'a:  b c' });
  });

  it('turns each key into its IssueQuery field', () => {
    expect(issueFilter('is:resolved level:fatal environment:production firstRelease:"1.0 beta" crash')).toEqual({
      status: 'resolved',
      level: 'fatal',
      environment: 'production',
      firstRelease: '1.0 beta',
      text: 'crash',
    });
    expect(issueFilter('is:all first-release:2.0')).toEqual({ status: 'all', firstRelease: '2.0' });
  });

  it('turns negations into exclusions; !is: alone searches every other status', () => {
    expect(issueFilter('!is:resolved !is:ignored !level:debug !environment:dev !environment:test !firstRelease:0.9')).toEqual({
      status: 'all',
      exclude: { statuses: ['resolved', 'ignored'], levels: ['debug'], environments: ['dev', 'test'], firstReleases: ['0.9'] },
    });
    expect(issueFilter('is:unresolved !level:info')).toEqual({ status: 'unresolved', exclude: { levels: ['info'] } });
  });

  it('refuses !is:all, and a key given twice, naming the token', () => {
    expect(failure('!is:all', '!is:all').message).toContain('use is:all');
    expect(failure('is:resolved x is:ignored', 'is:ignored').message).toContain('also is:resolved');
    failure('level:error level:fatal', 'level:fatal');
    failure('environment:a environment:b', 'environment:b');
    failure('firstRelease:1 first-release:2', 'first-release:2');
  });

  it('names the token and what is accepted for each kind of bad query', () => {
    expect(failure('is:bogus', 'is:bogus').message).toContain('unresolved, resolved, ignored, snoozed, all');
    expect(failure('level:loud', 'level:loud').message).toContain('debug, info, warning, error, fatal');
    expect(failure('assigned:me', 'assigned:me').message).toContain('is, level, environment, firstRelease');
    expect(failure('release:1.0', 'release:1.0').message).toContain('firstRelease:<version>');
    failure('environment:', 'environment:');
    failure('title:"oops', 'title:"oops');
  });

  it('combines given filters with the query, and refuses a given filter that contradicts it', () => {
    expect(issueFilter('crash', { status: 'resolved', level: 'error' })).toEqual({
      status: 'resolved',
      level: 'error',
      text: 'crash',
    });
    expect(issueFilter('is:resolved level:error', { status: 'resolved', level: 'error' })).toMatchObject({
      status: 'resolved',
      level: 'error',
    });
    // status all is no status at all: the query's narrows it, and is:all does not widen a given one.
    expect(issueFilter('is:ignored', { status: 'all' })).toEqual({ status: 'ignored' });
    expect(issueFilter('is:all', { status: 'ignored' })).toEqual({ status: 'ignored' });
    expect(issueFilter('!is:ignored', { status: 'all' })).toEqual({ status: 'all', exclude: { statuses: ['ignored'] } });
    expect(() => issueFilter('is:unresolved', { status: 'resolved' })).toThrow(
      new UserInputError('status "resolved" and the query\'s "is:unresolved" disagree: give the status in one place'),
    );
    expect(() => issueFilter('level:error', { level: 'fatal' })).toThrow(/level "fatal" and the query's "level:error" disagree/);
  });
});
