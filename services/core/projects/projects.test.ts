import { describe, expect, it } from 'vitest';
import { formatShortId, parseShortId } from './short-id.ts';
import { assertSlug, formatDsn, slugify } from './slug.ts';

describe('short ids', () => {
  it('upper-cases the slug and appends the number', () => {
    expect(formatShortId('web', 1)).toBe('WEB-1');
    expect(formatShortId('my-api_2', 42)).toBe('MY-API_2-42');
  });

  it('parses back, splitting at the last dash so slugs may contain dashes', () => {
    expect(parseShortId('MY-API_2-42')).toEqual({ projectSlug: 'my-api_2', number: 42 });
    expect(parseShortId('web-7')).toEqual({ projectSlug: 'web', number: 7 });
  });

  it.each(['WEB', 'WEB-', 'WEB-0', '-1', 'WEB-1x', 'WEB 1', 'WEB-99999999999999999'])('rejects %s', (text) => {
    expect(parseShortId(text)).toBeUndefined();
  });
});

describe('slugs and DSNs', () => {
  it('derives slugs from names', () => {
    expect(slugify('My Web App!')).toBe('my-web-app');
    expect(slugify('  Café  API ')).toBe('cafe-api');
  });

  it('rejects slugs a short id or URL could not carry', () => {
    expect(assertSlug('web-2')).toBe('web-2');
    for (const bad of ['', 'Web', '-web', '123', 'a/b', 'x'.repeat(51)]) {
      expect(() => assertSlug(bad)).toThrow(/invalid slug/);
    }
  });

  it('formats the DSN from the public base URL, keeping a path prefix', () => {
    expect(formatDsn('http://localhost:8000', 'abc', 3)).toBe('http://abc@localhost:8000/3');
    expect(formatDsn('https://errors.example.com/errata/', 'abc', 3)).toBe('https://abc@errors.example.com/errata/3');
  });
});
