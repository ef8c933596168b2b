// Ingest, once the request's own key is read (sentry-auth.ts): whose envelope is this? The
// envelope header's `dsn` and `origin` are held against the request as Sentry's Relay holds
// them (envelope/mod.rs `EnvelopeHeaders::complete`, endpoints/envelope.rs `EnvelopeParams`):
// - with a key in the request, a header `dsn` must be a DSN, name the URL's project id and the
//   request's key, and a header `origin` must be the request's Origin (its Referer without
//   one); each disagreement is a 400;
// - without one, the header `dsn` is the credential (401 when missing or no DSN) and states the
//   project itself: the URL's id is not consulted, as in Relay.
// What project the request states is then held against the key's (stated-project.ts, 403).
import { EnvelopeFramingError, parseEnvelope } from '../envelope/parse-envelope.ts';
import { UnauthorizedError, UserInputError } from '../errors.ts';
import { parseHeaderDsn, type HeaderDsn } from './header-dsn.ts';

export interface EnvelopeRequest {
  /** The key from X-Sentry-Auth, Authorization or sentry_key, if the request carries one. */
  publicKey?: string | undefined;
  /** The project id in the URL (`/api/<id>/envelope/`), if it has one. */
  pathProjectId?: number | undefined;
  /** The request's origin (requestOrigin), if it has one. */
  origin?: string | undefined;
}

export interface EnvelopeAuth {
  publicKey: string;
  /** The project the request says it is for, if it says: it must be the key's. */
  projectId?: number | undefined;
}

/** A header field that is there but is not what it must be (no DSN, no URL). */
const INVALID = Symbol('invalid');
type Field<T> = T | typeof INVALID | undefined;

export function envelopeAuth(request: EnvelopeRequest, header: Record<string, unknown>): EnvelopeAuth {
  const dsn = dsnOf(header.dsn);
  const origin = originOf(header.origin);
  return request.publicKey === undefined
    ? authByHeader(request, dsn, origin)
    : authByRequest({ ...request, publicKey: request.publicKey }, dsn, origin);
}

/** No key in the request: the header dsn is the credential, and states the project. */
function authByHeader(request: EnvelopeRequest, dsn: Field<HeaderDsn>, origin: Field<string>): EnvelopeAuth {
  if (dsn === undefined) {
    throw new UnauthorizedError(
      'missing authorization information: send the DSN public key as sentry_key (query or X-Sentry-Auth header), ' +
        'or the project\'s DSN as the envelope header\'s "dsn"',
    );
  }
  if (dsn === INVALID || origin === INVALID) {
    throw new UnauthorizedError(
      'bad envelope authentication header: its "dsn" must be the project\'s DSN (http(s)://<public key>@<host>/<project id>) ' +
        'and its "origin", if any, a URL',
    );
  }
  // The header's origin stands in for a request that has none (Relay copies the request's
  // meta over the header's), so only a request origin can disagree with it.
  if (origin !== undefined && request.origin !== undefined && origin !== request.origin) throw originMismatch();
  return { publicKey: dsn.publicKey, projectId: dsn.projectId };
}

/** A key in the request: the header may only agree with it, and with the URL's project id. */
function authByRequest(
  request: EnvelopeRequest & { publicKey: string },
  dsn: Field<HeaderDsn>,
  origin: Field<string>,
): EnvelopeAuth {
  if (origin === INVALID) {
    throw new UserInputError('invalid envelope header: its "origin" is not a URL: leave "origin" out of the envelope header');
  }
  if (dsn === INVALID) {
    throw new UserInputError(
      'invalid envelope header: its "dsn" is not a DSN (http(s)://<public key>@<host>/<project id>): ' +
        'send the project\'s DSN exactly as Errata prints it, or no "dsn"',
    );
  }
  if (origin !== undefined && origin !== request.origin) throw originMismatch();
  // A URL without an id (the legacy /api/store/) is not compared: Relay compares the dsn's id with
  // that absent one and so refuses even a right dsn there, a deviation kept on purpose (the
  // request table's row says why); the dsn's id is then the stated one, held against the key's.
  if (dsn && request.pathProjectId !== undefined && dsn.projectId !== request.pathProjectId) {
    throw new UserInputError(
      `project id header mismatch between envelope and request: the header dsn names project ${dsn.projectId}, ` +
        `the URL project ${request.pathProjectId}; send the envelope to the URL of the DSN it names`,
    );
  }
  if (dsn && dsn.publicKey !== request.publicKey) {
    throw new UserInputError(
      'public key header mismatch between envelope and request: the header dsn names another key than the request; ' +
        'authenticate with the key of the DSN in the header, or leave "dsn" out',
    );
  }
  return { publicKey: request.publicKey, projectId: request.pathProjectId ?? dsn?.projectId };
}

/**
 * The envelope header that authenticates a request without a key: the body's first line as it
 * is, up to its first newline, read as Relay reads it there (endpoints/envelope.rs: serde_json
 * over exactly that line, whitespace around the value allowed). An empty line before the header,
 * or a header spread over lines, is a 401 here, though framing skips such whitespace when the
 * request carries its key.
 */
export function authenticatingHeader(firstLine: Buffer): Record<string, unknown> {
  let end = firstLine.length;
  while (end > 0 && (firstLine[end - 1] === 0x20 || firstLine[end - 1] === 0x09 || firstLine[end - 1] === 0x0d)) end -= 1;
  try {
    return parseEnvelope(firstLine.subarray(0, end)).headers;
  } catch (error) {
    if (!(error instanceof EnvelopeFramingError)) throw error;
    throw new UnauthorizedError(
      "bad envelope authentication header: the body's first line must be the whole envelope header, with the " +
        'project\'s DSN as its "dsn" (or send the key in X-Sentry-Auth or sentry_key)',
    );
  }
}

/**
 * The request's origin as Relay reads it (request_meta.rs `PartialMeta`): the Origin header if
 * it is an http(s) URL, else the Referer if it is one; normalized so that equal URLs compare equal.
 */
export function requestOrigin(origin: string | undefined, referer: string | undefined): string | undefined {
  return httpUrl(origin) ?? httpUrl(referer);
}

function httpUrl(value: string | undefined): string | undefined {
  const url = value ? parseUrl(value) : undefined;
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : undefined;
}

/** A header `dsn`: absent (or null, as serde reads it), a DSN, or INVALID. */
function dsnOf(value: unknown): Field<HeaderDsn> {
  if (value === undefined || value === null) return undefined;
  return parseHeaderDsn(value) ?? INVALID;
}

/** A header `origin`: absent, a URL (of any scheme, as Relay's `Url` takes it), or INVALID. */
function originOf(value: unknown): Field<string> {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return INVALID;
  return parseUrl(value)?.href ?? INVALID;
}

/** URL.parse, which Node 20 lacks. */
function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function originMismatch(): UserInputError {
  return new UserInputError(
    'origin header mismatch between envelope and request: the envelope header\'s "origin" is not the request\'s ' +
      'Origin (or Referer without one); leave "origin" out of the envelope header',
  );
}
