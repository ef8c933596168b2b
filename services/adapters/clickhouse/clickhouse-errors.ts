// Which ClickHouse failures are the server's condition rather than the statement's fault:
// unreachable or timing out, too many parts (inserts faster than merges), out of memory or
// disk, read-only, overloaded, or tables not created yet (`errata migrate` pending). They
// become UnavailableError, which the dispatcher retries for as long as it takes (never passing
// a record over) and HTTP answers with 503; anything else stays as it is.
import { UnavailableError } from '../../core/errors.ts';

// 81 UNKNOWN_DATABASE, 60 UNKNOWN_TABLE, 159 TIMEOUT_EXCEEDED, 164 READONLY, 202 TOO_MANY_SIMULTANEOUS_QUERIES,
// 203 NO_FREE_CONNECTION, 209 SOCKET_TIMEOUT, 210 NETWORK_ERROR, 241 MEMORY_LIMIT_EXCEEDED, 242 TABLE_IS_READ_ONLY,
// 243 NOT_ENOUGH_SPACE, 252 TOO_MANY_PARTS, 425 SYSTEM_ERROR.
const TRANSIENT_SERVER_CODES = new Set(['81', '60', '159', '164', '202', '203', '209', '210', '241', '242', '243', '252', '425']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export function isTransientClickHouseError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && (TRANSIENT_SERVER_CODES.has(code) || NETWORK_CODES.has(code))) return true;
  return /timeout|socket hang up/i.test((error as Error)?.message ?? '');
}

export function classifyClickHouseError(error: unknown): unknown {
  return isTransientClickHouseError(error)
    ? new UnavailableError('the event store (ClickHouse) is unavailable: retry later', { cause: error })
    : error;
}
