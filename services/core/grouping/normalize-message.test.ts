import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeMessageForGrouping, parameterize, trimToTwoLines } from './normalize-message.ts';

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
