import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../core/errors.ts';
import { barSeconds, logsParams, logsWindow, readLogsFilter, withTerm } from './logs-filter.ts';

const read = (query: string) => readLogsFilter(new URLSearchParams(query));
const NOW = new Date('2026-03-01T12:00:00Z');

describe('the Logs page address', () => {
  it('reads back every part it writes, and leaves defaults out', () => {
    const filter = read('project=web&query=level:error+x&window=24h&sort=oldest&columns=route,duration_ms,route&cursor=abc');
    expect(filter).toEqual({
      project: 'web',
      query: 'level:error x',
      window: '24h',
      from: undefined,
      to: undefined,
      sort: 'oldest',
      columns: ['route', 'duration_ms'],
      cursor: 'abc',
    });
    expect(read(logsParams(filter, { cursor: 'abc' }))).toEqual(filter);
    // A change of anything else starts at the first page again.
    expect(logsParams(filter, { query: 'y' })).toBe('project=web&query=y&window=24h&sort=oldest&columns=route%2Cduration_ms');
    expect(logsParams(read(''))).toBe('');
    expect(read('').sort).toBe('newest');
  });

  it('takes a from/to window over the preset, never further back than retention', () => {
    const fixed = read('from=2026-03-01T11:58:00Z&to=2026-03-01T12:00:00.000Z');
    expect(logsWindow(fixed, NOW, 60)).toEqual({ since: Date.parse('2026-03-01T11:58:00Z') / 1000, until: NOW.getTime() / 1000 });
    expect(logsWindow(read('window=30d'), NOW, 60)).toEqual({ since: NOW.getTime() / 1000 - 3600, until: NOW.getTime() / 1000 });
    expect(logsParams(fixed)).toBe('from=2026-03-01T11%3A58%3A00Z&to=2026-03-01T12%3A00%3A00.000Z');
    // Cut to retention's start on a minute (12:00:42.5 less 600 minutes, rounded up): the
    // histogram then reads per-minute counts. From 02:00:42.5 it read every record of the window.
    const at = new Date('2026-03-01T12:00:42.5Z');
    expect(logsWindow(read('from=2000-01-01T00:00:00Z'), at, 600).since).toBe(Date.parse('2026-03-01T02:01:00Z') / 1000);
  });

  it('starts a preset on a minute, and draws bars of whole minutes once a bar is a minute or more', () => {
    const at = new Date('2026-03-01T12:00:42.5Z');
    expect(logsWindow(read('window=1h'), at, 600)).toEqual({
      since: Date.parse('2026-03-01T11:01:00Z') / 1000,
      until: at.getTime() / 1000,
    });
    expect(barSeconds(3600 - 17.5)).toBe(120);
    expect(barSeconds(86_400 - 30)).toBe(2880);
    // A bar of a day's window narrowed to: 48 minutes, drawn in bars of two minutes.
    expect(barSeconds(2880)).toBe(120);
    expect(barSeconds(120)).toBe(4);
    expect(barSeconds(10)).toBe(1);
  });

  it("keeps a preset's start from its first page on a later one, within retention", () => {
    const first = new Date('2026-03-01T12:00:42.5Z');
    const since = logsWindow(read('window=1h'), first, 600).since;
    const later = new Date(first.getTime() + 10 * 60_000);
    expect(logsWindow(read('window=1h'), later, 600, since)).toEqual({ since, until: later.getTime() / 1000 });
    // Retention moved past the start meanwhile; a start in the future is not a page's.
    expect(logsWindow(read('window=1h'), later, 30, since).since).toBe(Date.parse('2026-03-01T11:41:00Z') / 1000);
    expect(logsWindow(read('window=1h'), later, 600, later.getTime() / 1000 + 60).since).toBe(
      Date.parse('2026-03-01T11:11:00Z') / 1000,
    );
  });

  it('refuses a bad window, time or window that ends before it starts, saying what it takes', () => {
    expect(() => read('window=forever')).toThrow(new UserInputError('window "forever" is not one of 15m, 1h, 24h, 7d, 30d'));
    expect(() => read('sort=random')).toThrow(new UserInputError('sort "random" is not one of newest, oldest'));
    expect(() => read('from=yesterday')).toThrow(/from "yesterday" is not a time: write ISO 8601/);
    expect(() => logsWindow(read('from=2026-03-01T11:00:00Z&to=2026-03-01T10:00:00Z'), NOW, 600)).toThrow(
      /ends before it starts/,
    );
    expect(() => read(`columns=${'a,b,c,d,e,f,g,h,i'}`)).toThrow(/at most 8 columns/);
  });

  it('adds a term to the search, quoting values the syntax would misread', () => {
    expect(withTerm('', 'route', '/pay')).toBe('route:/pay');
    expect(withTerm(' level:error ', 'user', 'two words')).toBe('level:error user:"two words"');
    expect(withTerm('x', 'op', '>=3')).toBe('x op:">=3"');
    expect(withTerm('x', 'q', 'say "hi" \\ bye')).toBe('x q:"say \\"hi\\" \\\\ bye"');
  });
});
