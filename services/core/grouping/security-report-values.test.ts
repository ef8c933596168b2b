import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { md5 } from './compute-grouping.ts';

const group = (raw: unknown) => groupEvent(prepareEvent(raw, { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 })).grouping;

describe('events without an exception or stack trace of their own, grouped as in Sentry', () => {
  it('groups a CSP report by its directive and the origin it blocked, not the page or message', () => {
    const report = (blocked: string, page: string) =>
      group({
        message: `Blocked 'script' from '${page}'`,
        csp: { effective_directive: 'script-src', blocked_uri: blocked, document_uri: page },
      });
    expect(report('https://Cdn.example:8443/lib/a.js', 'https://a.test/1')).toEqual({
      hashes: [md5(['script-src', 'Cdn.example:8443'])],
      strategy: 'security-report',
    });
    expect(report('https://Cdn.example:8443/lib/b.js', 'https://a.test/2').hashes).toEqual(
      report('https://Cdn.example:8443/lib/a.js', 'https://a.test/1').hashes,
    );
    expect(report('', 'https://a.test/1').hashes).toEqual([md5(['script-src', "'self'"])]);
    expect(report('data', 'https://a.test/1').hashes).toEqual([md5(['script-src', 'data:'])]);
  });

  it("names an inline or eval'd script of the page itself by what the policy forbade", () => {
    const local = (violated: string) =>
      group({ csp: { effective_directive: 'script-src', blocked_uri: '', violated_directive: violated } }).hashes;
    expect(local("script-src 'unsafe-eval' 'self'")).toEqual([md5(['script-src', "'unsafe-eval'"])]);
    expect(local("script-src 'unsafe-inline'")).toEqual([md5(['script-src', "'unsafe-inline'"])]);
  });

  it('groups certificate reports by their kind and host', () => {
    expect(group({ hpkp: { hostname: 'example.com', port: 443 } }).hashes).toEqual([md5(['hpkp', 'example.com'])]);
    expect(group({ expectct: { hostname: 'example.com' } }).hashes).toEqual([md5(['expect-ct', 'example.com'])]);
    expect(group({ expectstaple: { hostname: 'example.com' } }).hashes).toEqual([md5(['expect-staple', 'example.com'])]);
  });

  it('groups a template error by the template and its failing line', () => {
    const event = { message: 'Invalid block tag 42', template: { filename: 'foo.html', lineno: 3, context_line: '{% bad %}' } };
    expect(group(event)).toEqual({ hashes: [md5(['foo.html', '{% bad %}'])], strategy: 'template' });
  });

  it('lets a legacy checksum decide alone: as the hash when it is an MD5, hashed otherwise', () => {
    const md5Checksum = '11212012123120120415201309082013';
    expect(group({ checksum: md5Checksum, message: 'x', fingerprint: ['mine'] })).toEqual({
      hashes: [md5Checksum],
      strategy: 'checksum',
    });
    expect(group({ checksum: 'not a legit checksum', message: 'x' }).hashes).toEqual([md5(['not a legit checksum'])]);
  });
});
