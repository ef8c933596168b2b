import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeMessageForGrouping, PARAMETERS, parameterize, trimToTwoLines } from './normalize-message.ts';

describe('parameterize', () => {
  // Sentry's own expectations (src/sentry/grouping parameterization tests).
  it.each([
    ['0.0.0.0:80', '<ip>:<int>'],
    ["b='1'", 'b=<quoted_str>'],
    ['a = true', 'a = true'],
    ['a=true', 'a=<bool>'],
    ['deadbeef', 'deadbeef'],
    ['9af8c3be', '<hex>'],
    ['commit a93c7d2', 'commit <git_sha>'],
    ['Encoding: utf-8', 'Encoding: utf<int>'],
    ['tcp://user:pass@email.com:10', 'tcp://user:<email>:<int>'],
    ['Order 1234 failed for a@b.com', 'Order <int> failed for <email>'],
    ['User 42 logged in from 10.0.0.1', 'User <int> logged in from <ip>'],
    ['fetch https://api.example.com/v1/users?id=3 failed', 'fetch <url> failed'],
    ['host db.internal.example.com down', 'host <hostname> down'],
    ['id 550e8400-e29b-41d4-a716-446655440000 missing', 'id <uuid> missing'],
    ['took 250ms and 1.5s', 'took <duration> and <duration>'],
    ['at 2024-01-02T03:04:05Z', 'at <date>'],
    ['pointer 0xDEADBEEF', 'pointer <hex>'],
    ['ratio -3.25 and 7.5', 'ratio <float> and <float>'],
    ['sha 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12', 'sha <sha1>'],
  ])('%s -> %s', (input, output) => {
    expect(parameterize(input)).toBe(output);
  });

  // The definition parameterize must keep: one regex of every parameter, in order, replacing
  // the leftmost match. parameterize finds hostnames apart, so that the scan stays linear.
  const oneRegex = new RegExp(
    PARAMETERS.map((p) => `${p.after ? `(?<=${p.after})` : ''}(?<${p.name}>${p.pattern})`).join('|'),
    'g',
  );
  function byOneRegex(text: string): string {
    return text.replace(oneRegex, (...args: unknown[]) => {
      const groups = args[args.length - 1] as Record<string, string | undefined>;
      return `<${PARAMETERS.find((p) => groups[p.name] !== undefined)!.name}>`;
    });
  }

  it.each([
    ['a'.repeat(70) + '.b.com', 'a'.repeat(70) + '.<hostname>'],
    ['-5.a.com', '<int>.<hostname>'],
    ['a.co.uk', '<hostname>.uk'],
    ['a.b.Com', 'a.b.Com'],
    ['a..com', 'a..com'],
    ['_a.com', '_a.com'],
    ['http://a.com/x y.io', '<url> <hostname>'],
    ['email a@b.c.com x', 'email <email> x'],
    [`a.${'b'.repeat(63)}.com`, '<hostname>'],
    [`a.${'b'.repeat(64)}.com`, `a.${'b'.repeat(64)}.com`],
  ])('finds hostnames where one regex would: %s', (input, output) => {
    expect(byOneRegex(input)).toBe(output);
    expect(parameterize(input)).toBe(output);
  });

  it('replaces what one regex of every parameter replaces, on 20,000 strings of the tokens that matter', () => {
    const tokens = ['a', 'x', 'Z', '1', '0', '9', '.', '-', ':', ' ', 'com', 'COM', 'io', 'co', '.net', 's', 'ms', '=', '"'];
    tokens.push("'", 'e', '@', '_', '0x', '2024-01-01', '12:30:45', 'T', 'true', '/', 'http://', 'ff', '::', '%');
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
    const different: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      for (let i = 1 + Math.floor(random() * 14); i > 0; i--) text += tokens[Math.floor(random() * tokens.length)];
      if (parameterize(text) !== byOneRegex(text)) different.push(text);
    }
    expect(different).toEqual([]);
  });

  it('does not take a duration from inside a run of digits, unlike Sentry only right after a date', () => {
    expect(parameterize(`took ${'1'.repeat(30)}s`)).toBe('took <duration>');
    expect(parameterize('x12345s')).toBe('x<duration>');
    // Sentry: "<date><duration>"; its pattern tries a duration from every digit of a run.
    expect(parameterize('2024-01-015s')).toBe('<date>5s');
  });
});

describe('trimToTwoLines', () => {
  it('keeps the first two non-blank lines and marks the cut', () => {
    expect(trimToTwoLines('one\n\ntwo\nthree')).toBe('one\ntwo...');
    expect(trimToTwoLines('one\ntwo')).toBe('one\ntwo');
    expect(trimToTwoLines('single\n')).toBe('single...');
  });
});

describe('normalizeMessageForGrouping', () => {
  it('caps each line, so hostile long words cost little and still group', () => {
    const long = 'a.'.repeat(4096);
    expect(normalizeMessageForGrouping(long)).toBe(`${'a.'.repeat(512)}...`);
    expect(normalizeMessageForGrouping(`${long}1`)).toBe(normalizeMessageForGrouping(`${long}2`));
  });

  it('matches the hash Sentry computes for a parameterized message', () => {
    const normalized = normalizeMessageForGrouping('User 42 logged in from 10.0.0.1');
    expect(createHash('md5').update(normalized).digest('hex')).toBe('0a0735a01d18cb6ccd90ba437e1656a9');
  });
});
