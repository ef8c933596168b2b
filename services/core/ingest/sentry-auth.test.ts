import { describe, expect, it } from 'vitest';
import { UnauthorizedError, UserInputError } from '../errors.ts';
import { envelopeAuth } from './envelope-auth.ts';
import { publicKeyFromRequest, type AuthCarriers } from './sentry-auth.ts';

/** Both steps, as ingest runs them: the request's carriers, then the envelope header's dsn. */
const resolvePublicKey = (carriers: AuthCarriers, dsn: unknown) =>
  envelopeAuth({ publicKey: publicKeyFromRequest(carriers) }, dsn === undefined ? {} : { dsn }).publicKey;

const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const q = (text = '') => new URLSearchParams(text);

describe('resolvePublicKey', () => {
  it('reads X-Sentry-Auth as Python, Go and sentry-cli send it', () => {
    const header = `Sentry sentry_key=${KEY}, sentry_version=7, sentry_client=sentry.python/2.75.0`;
    expect(resolvePublicKey({ xSentryAuth: header, query: q() }, undefined)).toBe(KEY);
  });

  it('reads the query string as the JavaScript SDKs send it', () => {
    const query = q(`sentry_version=7&sentry_key=${KEY}&sentry_client=sentry.javascript.browser%2F11.12.0`);
    expect(resolvePublicKey({ query }, undefined)).toBe(KEY);
  });

  it('reads Authorization with the Sentry and Basic schemes', () => {
    expect(resolvePublicKey({ authorization: `Sentry sentry_key=${KEY}`, query: q() }, undefined)).toBe(KEY);
    const basic = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;
    expect(resolvePublicKey({ authorization: basic, query: q() }, undefined)).toBe(KEY);
  });

  it('ignores an Authorization header of another scheme', () => {
    expect(resolvePublicKey({ authorization: 'Bearer something', query: q(`sentry_key=${KEY}`) }, undefined)).toBe(KEY);
  });

  it('falls back to the envelope header dsn, including one with a path prefix', () => {
    expect(resolvePublicKey({ query: q() }, `http://${KEY}@localhost:8000/errata/42`)).toBe(KEY);
  });

  it('refuses two carriers at once', () => {
    const carriers = { xSentryAuth: `Sentry sentry_key=${KEY}`, query: q(`sentry_key=${KEY}`) };
    expect(() => resolvePublicKey(carriers, undefined)).toThrow(/multiple authorization payloads/);
  });

  it('refuses a request without any key, naming where one goes', () => {
    expect(() => resolvePublicKey({ query: q() }, undefined)).toThrow(UnauthorizedError);
    expect(() => resolvePublicKey({ query: q() }, undefined)).toThrow(/missing authorization information/);
  });

  it('refuses malformed carriers', () => {
    expect(() => resolvePublicKey({ xSentryAuth: 'Token abc', query: q() }, undefined)).toThrow(/must look like/);
    expect(() => resolvePublicKey({ xSentryAuth: 'Sentry sentry_version=7', query: q() }, undefined)).toThrow(/no sentry_key/);
    expect(() => resolvePublicKey({ query: q('sentry_key=<script>') }, undefined)).toThrow(/valid DSN public key/);
    expect(() => resolvePublicKey({ query: q() }, 'not a url')).toThrow(/bad envelope authentication/);
  });

  it('refuses an envelope dsn that names another key than the request', () => {
    const other = 'ffffffffffffffffffffffffffffffff';
    expect(() => resolvePublicKey({ query: q(`sentry_key=${KEY}`) }, `http://${other}@h/1`)).toThrow(UserInputError);
  });
});
