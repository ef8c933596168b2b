// Which Postgres failures are the server's condition rather than the statement's fault:
// connections lost or refused, failover to a read-only standby, deadlocks and serialization
// failures, resource exhaustion, shutdowns, a full pool. They become UnavailableError, which
// the dispatcher retries for as long as it takes (never passing a record over) and HTTP
// answers with 503; anything else stays as it is. Also which failure is a unique violation,
// which the stores turn into a ConflictError naming what is taken.
import { UnavailableError } from '../../core/errors.ts';

// SQLSTATE classes: 08 connection exception, 40 transaction rollback (deadlock, serialization),
// 53 insufficient resources, 57 operator intervention (shutdown, statement timeout), 58 system
// error; 25006, a write on a read-only (standby) server; and 42P01, a table that is not there
// (yet): a schema problem blocks the pipeline, visibly, rather than passing records over.
const TRANSIENT_CLASSES = new Set(['08', '40', '53', '57', '58']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export function isTransientPgError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (isStalePlan(error)) return true;
  if (typeof code === 'string') {
    if (code.length === 5 && (TRANSIENT_CLASSES.has(code.slice(0, 2)) || code === '25006' || code === '42P01')) return true;
    if (NETWORK_CODES.has(code)) return true;
  }
  const message = (error as Error)?.message ?? '';
  // pg's own wording for a dropped connection and for a pool that had no connection in time.
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}

/**
 * Postgres's refusal to run a prepared statement whose table changed shape since it was parsed
 * ("cached plan must not change result type", a newer release's migration in a fleet). Transient:
 * the client prepares its statements afresh, so the next try runs (pg-pool-client.ts).
 */
export function isStalePlan(error: unknown): boolean {
  const { code, routine } = (error ?? {}) as { code?: unknown; routine?: unknown };
  return code === '0A000' && routine === 'RevalidateCachedQuery';
}

export function classifyPgError(error: unknown): unknown {
  return isTransientPgError(error)
    ? new UnavailableError('the metadata store (Postgres) is unavailable: retry later', { cause: error })
    : error;
}

const UNIQUE_VIOLATION = '23505';

/** A unique constraint refused the statement: a name or slug that is taken (ConflictError for the caller). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}
