// The small, typed set of errors the domain raises. They are mapped to HTTP statuses and
// MCP tool errors in one place each (runtime/http-errors.ts, and the MCP layer later), so a
// client always gets a message that says what was wrong and how to fix it.
import type { Outcome } from './outcomes.ts';

export type ErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'unavailable';

export class ErrataError extends Error {
  readonly code: ErrorCode;
  /** What a refusal of SDK data drops, recorded once where the ingest request ends. */
  outcomes: readonly Outcome[] = [];
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The error, carrying what its refusal drops (errata_outcomes_total). */
export function dropping<E extends ErrataError>(error: E, ...outcomes: Outcome[]): E {
  error.outcomes = outcomes;
  return error;
}

/** The caller sent something we cannot use; the message says what and how to fix it. */
export class UserInputError extends ErrataError {
  constructor(message: string) {
    super('invalid_input', message);
  }
}

/** No credentials, or credentials we do not recognise. */
export class UnauthorizedError extends ErrataError {
  constructor(message: string) {
    super('unauthorized', message);
  }
}

/** Recognised credentials that may not do this (disabled key, too weak a role). */
export class ForbiddenError extends ErrataError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** Absent, or invisible to this caller: the two are deliberately indistinguishable. */
export class NotFoundError extends ErrataError {
  constructor(message: string) {
    super('not_found', message);
  }
}

export class ConflictError extends ErrataError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class PayloadTooLargeError extends ErrataError {
  /** The byte limit passed, when the limit is one of bytes. */
  readonly limitBytes: number | undefined;
  constructor(message: string, limitBytes?: number) {
    super('payload_too_large', message);
    this.limitBytes = limitBytes;
  }
}

export class RateLimitedError extends ErrataError {
  readonly retryAfterSeconds: number;
  /** Extra response headers that tell the client what is limited (X-Sentry-Rate-Limits). */
  readonly headers: Record<string, string>;
  constructor(message: string, retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super('rate_limited', message);
    this.retryAfterSeconds = retryAfterSeconds;
    this.headers = headers;
  }
}

/**
 * A dependency (queue, store) is down, or the server is too busy to take the work right now: retry
 * later. `cause` keeps the driver's error for logs; `retryAfterSeconds`, when known, is sent as
 * Retry-After.
 */
export class UnavailableError extends ErrataError {
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super('unavailable', message);
    if (options && 'cause' in options) this.cause = options.cause;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** A refusal because the server is too busy just now (with a Retry-After), not because something is down. */
export function isBusy(error: unknown): error is UnavailableError & { retryAfterSeconds: number } {
  return error instanceof UnavailableError && error.retryAfterSeconds !== undefined;
}

/** Rebuilds a domain error from its code and message (after crossing a thread or process boundary). */
export function errorFromCode(code: ErrorCode, message: string): ErrataError {
  switch (code) {
    case 'invalid_input':
      return new UserInputError(message);
    case 'unauthorized':
      return new UnauthorizedError(message);
    case 'forbidden':
      return new ForbiddenError(message);
    case 'not_found':
      return new NotFoundError(message);
    case 'conflict':
      return new ConflictError(message);
    case 'payload_too_large':
      return new PayloadTooLargeError(message);
    case 'rate_limited':
      return new RateLimitedError(message, 60);
    case 'unavailable':
      return new UnavailableError(message);
  }
}
