// Which ClickHouse failures are the server's condition rather than the statement's fault:
// unreachable or timing out, too many parts (inserts faster than merges), out of memory or
// disk, read-only, overloaded, or tables not created yet (`errata migrate` pending). They
// become UnavailableError, which the dispatcher retries for as long as it takes (never passing
// a record over) and HTTP answers with 503; anything else stays as it is.
import { UnavailableError } from '../../core/errors.ts';

// 81 UNKNOWN_DATABASE, 60 UNKNOWN_TABLE, 159 TIMEOUT_EXCEEDED, 164 READONLY, 173 CANNOT_ALLOCATE_MEMORY,
// 201 QUOTA_EXCEEDED, 202 TOO_MANY_SIMULTANEOUS_QUERIES, 203 NO_FREE_CONNECTION, 209 SOCKET_TIMEOUT,
// 210 NETWORK_ERROR, 225 NO_ZOOKEEPER, 236 ABORTED, 241 MEMORY_LIMIT_EXCEEDED, 242 TABLE_IS_READ_ONLY,
// 243 NOT_ENOUGH_SPACE, 244 UNEXPECTED_ZOOKEEPER_ERROR, 252 TOO_MANY_PARTS, 279 ALL_CONNECTION_TRIES_FAILED,
// 285 TOO_FEW_LIVE_REPLICAS, 319 UNKNOWN_STATUS_OF_INSERT, 394 QUERY_WAS_CANCELLED (a server shutting down),
// 425 SYSTEM_ERROR, 439 CANNOT_SCHEDULE_TASK, 745 SERVER_OVERLOADED, 999 KEEPER_EXCEPTION (names as
// errorCodeToName gives them). One missing here is taken for a bad record: an overloaded server's
// refusal dropped good events after three tries.
const TRANSIENT_SERVER_CODES = new Set([
  '81',
  '60',
  '159',
  '164',
  '173',
  '201',
  '202',
  '203',
  '209',
  '210',
  '225',
  '236',
  '241',
  '242',
  '243',
  '244',
  '252',
  '279',
  '285',
  '319',
  '394',
  '425',
  '439',
  '745',
  '999',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * The server's code in the message when the client found none: it reads one only from a message
 * that ends in the code's name, `(TOO_MANY_PARTS)`, which servers before about 21.x do not write
 * (18.16: `Code: 252, e.displayText() = DB::Exception: Too many parts (300). ...`). Without it, an
 * overloaded or unmigrated server's refusals were taken for bad records, and the records dropped.
 */
const MESSAGE_CODE = /^\s*Code: (\d+)[,.]/;

/** A body from something in front of ClickHouse (a proxy's 502 page), not from ClickHouse itself. */
const GATEWAY_PAGE = /^\s*<|\b(502 Bad Gateway|503 Service (Temporarily )?Unavailable|504 Gateway Time-?out)\b/i;

/** The server's error code ('159'), or a network error's ('ECONNRESET'); undefined when neither is known. */
export function clickHouseErrorCode(error: unknown): string | undefined {
  const given = (error as { code?: unknown })?.code;
  return typeof given === 'string' ? given : MESSAGE_CODE.exec((error as Error)?.message ?? '')?.[1];
}

export function isTransientClickHouseError(error: unknown): boolean {
  const message = (error as Error)?.message ?? '';
  const code = clickHouseErrorCode(error);
  if (code !== undefined) return TRANSIENT_SERVER_CODES.has(code) || NETWORK_CODES.has(code);
  return /timeout|socket hang up/i.test(message) || GATEWAY_PAGE.test(message);
}

export function classifyClickHouseError(error: unknown): unknown {
  return isTransientClickHouseError(error)
    ? new UnavailableError('the event store (ClickHouse) is unavailable: retry later', { cause: error })
    : error;
}
