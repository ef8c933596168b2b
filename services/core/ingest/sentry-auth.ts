// Finding the DSN public key of an ingest request (ingest role, before anything else).
// The key may ride in any one of: X-Sentry-Auth, Authorization (Sentry or Basic scheme), the
// `sentry_key` query parameter, or the envelope header's `dsn`. Two carriers at once is refused
// as Relay does; the envelope `dsn` is consulted only when no other carrier is present, and
// checked against the request in envelope-auth.ts.
import { UnauthorizedError } from '../errors.ts';

export interface AuthCarriers {
  xSentryAuth?: string;
  authorization?: string;
  query: URLSearchParams;
}

const PUBLIC_KEY = /^[A-Za-z0-9_-]{8,64}$/;

/** The public key from the request itself, or undefined when none of its carriers has one. */
export function publicKeyFromRequest(carriers: AuthCarriers): string | undefined {
  const found: string[] = [];
  if (carriers.xSentryAuth !== undefined) found.push(keyFromSentryHeader(carriers.xSentryAuth, 'X-Sentry-Auth'));
  const authorization = carriers.authorization?.trim();
  if (authorization && /^sentry\s/i.test(authorization)) found.push(keyFromSentryHeader(authorization, 'Authorization'));
  else if (authorization && /^basic\s/i.test(authorization)) found.push(keyFromBasic(authorization));
  const queryKey = carriers.query.get('sentry_key');
  if (queryKey !== null) found.push(checkedKey(queryKey, 'the sentry_key query parameter'));
  if (found.length > 1) {
    throw new UnauthorizedError(
      'multiple authorization payloads detected: send the DSN key in exactly one place (X-Sentry-Auth, Authorization or sentry_key)',
    );
  }
  return found[0];
}

function keyFromSentryHeader(value: string, header: string): string {
  const body = value.trim();
  if (!/^sentry\s/i.test(body)) {
    throw new UnauthorizedError(`${header} must look like "Sentry sentry_key=<public key>, sentry_version=7"`);
  }
  for (const part of body.slice(6).split(',')) {
    const [name, ...rest] = part.split('=');
    const key = name?.trim().replace(/^sentry_/, '');
    if (key === 'key') return checkedKey(rest.join('=').trim(), header);
  }
  throw new UnauthorizedError(`${header} has no sentry_key: add sentry_key=<public key> from the project's DSN`);
}

function keyFromBasic(value: string): string {
  const decoded = Buffer.from(value.trim().slice(6).trim(), 'base64').toString('utf8');
  return checkedKey(decoded.split(':')[0] ?? '', 'the Basic Authorization username');
}

/** Whether a string can be a DSN public key (what Errata makes, and what SDKs copy from it). */
export function isPublicKey(key: string): boolean {
  return PUBLIC_KEY.test(key);
}

function checkedKey(key: string, where: string): string {
  if (!isPublicKey(key)) throw badKey(where);
  return key;
}

function badKey(where: string): Error {
  return new UnauthorizedError(`${where} does not hold a valid DSN public key: copy the DSN from \`errata createproject\``);
}
