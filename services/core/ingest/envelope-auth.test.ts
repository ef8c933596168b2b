// What the request table (services/ingest/relay-request-conformance.test.ts) cannot show through
// Relay's routes: a URL without a project id, and how the request's origin is read.
import { describe, expect, it } from 'vitest';
import { UserInputError } from '../errors.ts';
import { envelopeAuth, requestOrigin } from './envelope-auth.ts';

const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

describe('envelopeAuth', () => {
  it("states the header dsn's project when the URL has none (/api/envelope/), beside a key in the request", () => {
    expect(envelopeAuth({ publicKey: KEY }, { dsn: `http://${KEY}@errata.example/7` })).toEqual({ publicKey: KEY, projectId: 7 });
  });

  it('states the URL project, or none, when the header has no dsn', () => {
    expect(envelopeAuth({ publicKey: KEY, pathProjectId: 3 }, {})).toEqual({ publicKey: KEY, projectId: 3 });
    expect(envelopeAuth({ publicKey: KEY }, {})).toEqual({ publicKey: KEY, projectId: undefined });
  });

  it('compares origins as URLs, so a trailing slash or letter case makes no difference', () => {
    const request = { publicKey: KEY, origin: requestOrigin('https://Shop.example', undefined) };
    expect(envelopeAuth(request, { origin: 'https://shop.example/' }).publicKey).toBe(KEY);
    expect(() => envelopeAuth(request, { origin: 'https://shop.example:8443/' })).toThrow(UserInputError);
  });
});

describe('requestOrigin', () => {
  it('takes the Origin header, else the Referer, as Relay does', () => {
    expect(requestOrigin('https://shop.example', 'https://other.example/page')).toBe('https://shop.example/');
    expect(requestOrigin(undefined, 'https://shop.example/cart?id=1')).toBe('https://shop.example/cart?id=1');
  });

  it('passes over an Origin that is no http(s) URL ("null" from a sandboxed page) to the Referer', () => {
    expect(requestOrigin('null', 'https://shop.example/')).toBe('https://shop.example/');
    expect(requestOrigin('null', undefined)).toBeUndefined();
    expect(requestOrigin('chrome-extension://abc', 'file:///tmp/page.html')).toBeUndefined();
  });
});
