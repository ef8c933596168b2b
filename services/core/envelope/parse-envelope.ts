// Envelope framing, as SDKs send it to /api/{id}/envelope/ (ingest role, first step of the
// path of an event). Framing is validated strictly and synchronously so the client hears about
// a broken envelope at once; item payloads are opaque bytes here and parsed later.
//
//   Envelope = Headers { "\n" Item } [ "\n" ]      Item = Headers "\n" Payload
//
// With a `length` header the payload is exactly that many bytes and must be followed by "\n"
// or the end; without it the payload runs to the next "\n" or the end. Headers are read the way
// Sentry's Relay reads them (a JSON stream reader): whitespace and empty lines before a header
// are skipped, and the byte right after the header's closing brace must be "\n" or the end.
// parse-envelope.test.ts holds each framing behaviour next to Relay's verdict on it.
import { PayloadTooLargeError, UserInputError } from '../errors.ts';
import { outcome } from '../outcomes.ts';

export interface ItemHeaders {
  type: string;
  length?: number;
  [key: string]: unknown;
}

export interface EnvelopeItem {
  headers: ItemHeaders;
  payload: Buffer;
}

export interface Envelope {
  headers: Record<string, unknown>;
  items: EnvelopeItem[];
}

const NEWLINE = 0x0a;

/** Framing problems: the message names the item and what is wrong with it. */
export class EnvelopeFramingError extends UserInputError {
  override outcomes = [outcome('invalid_envelope')];
}

interface EnvelopeLimits {
  /** Items of every type in one envelope (ERRATA_MAX_ENVELOPE_ITEMS); parsing stops beyond it. */
  maxItems: number;
}

/**
 * More items than the limit: refused as a whole before the rest is even framed, so a small
 * compressed body of many thousand empty items costs no more than the limit's worth.
 */
export class TooManyItemsError extends PayloadTooLargeError {
  override outcomes = [outcome('too_large')];
}

export function parseEnvelope(body: Buffer, limits: EnvelopeLimits = { maxItems: Infinity }): Envelope {
  if (body.length === 0) {
    throw new EnvelopeFramingError('empty request body: send an envelope (a JSON header line, then items)');
  }
  const budget = { spare: MAX_HEADER_VALUES, bytes: MAX_HEADER_BYTES };
  const header = readHeader(body, 0, 'envelope header', budget);
  if (!header) {
    throw new EnvelopeFramingError('missing envelope header: the body holds only whitespace; start it with a JSON header line');
  }
  const items: EnvelopeItem[] = [];
  let offset = header.end + 1;
  while (offset < body.length) {
    const itemNumber = items.length + 1;
    if (itemNumber > limits.maxItems) {
      throw new TooManyItemsError(
        `the envelope has more than ${limits.maxItems} items (ERRATA_MAX_ENVELOPE_ITEMS): send fewer items per request`,
      );
    }
    const itemHeader = readHeader(body, offset, `envelope item ${itemNumber} header`, budget);
    if (!itemHeader) {
      throw new EnvelopeFramingError(
        `unexpected end of the envelope: only whitespace follows ${items.length === 0 ? 'the envelope header' : `item ${items.length}`}; ` +
          'end the envelope with a single newline after the last payload',
      );
    }
    const itemHeaders = checkItemHeaders(itemHeader.value, itemNumber);
    // The last header needs no newline: the payload then starts (and is empty) at the end.
    const payloadStart = Math.min(itemHeader.end + 1, body.length);
    let payloadEnd: number;
    if (itemHeaders.length !== undefined) {
      payloadEnd = payloadStart + itemHeaders.length;
      if (payloadEnd > body.length) {
        throw new EnvelopeFramingError(
          `envelope item ${itemNumber} (${itemHeaders.type}) declares length ${itemHeaders.length} ` +
            `but only ${body.length - payloadStart} bytes follow its header: fix the length or send the whole payload`,
        );
      }
      if (payloadEnd < body.length && body[payloadEnd] !== NEWLINE) {
        throw new EnvelopeFramingError(
          `envelope item ${itemNumber} (${itemHeaders.type}): expected a newline after its ` +
            `${itemHeaders.length}-byte payload; the length header does not match the payload`,
        );
      }
    } else {
      payloadEnd = lineEnd(body, payloadStart);
    }
    items.push({ headers: itemHeaders, payload: body.subarray(payloadStart, payloadEnd) });
    offset = payloadEnd + 1;
  }
  return { headers: header.value, items };
}

function lineEnd(body: Buffer, from: number): number {
  const index = body.indexOf(NEWLINE, from);
  return index === -1 ? body.length : index;
}

function checkItemHeaders(headers: Record<string, unknown>, itemNumber: number): ItemHeaders {
  // An empty type is an unknown one, as in Relay: framed here, then counted as unknown_item_type.
  if (typeof headers.type !== 'string') {
    throw new EnvelopeFramingError(`envelope item ${itemNumber} header has no "type": every item needs one`);
  }
  const length = headers.length;
  if (length !== undefined && length !== null) {
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
      throw new EnvelopeFramingError(
        `envelope item ${itemNumber} (${headers.type}) has an invalid "length": expected a non-negative integer`,
      );
    }
    return { ...headers, type: headers.type, length };
  }
  const { length: _ignored, ...rest } = headers;
  return { ...rest, type: headers.type };
}

/** Header lines nest no deeper than this (serde_json's limit, which Relay parses them with). */
const MAX_HEADER_DEPTH = 128;

/**
 * Values a header may hold (objects, arrays and list items, counted by their brackets and
 * commas). SDKs write a few dozen; without a limit a header of megabytes of `{},` parsed into
 * some 50 times its size in objects, running ingest out of memory from one small compressed
 * request. A long string is one value and costs its length, so an oversized `sdk` is still read
 * and cut down later (ingest-hardening.test.ts).
 */
const MAX_HEADER_VALUES = 10_000;

/**
 * Values each header holds for free; beyond them, the envelope's headers share one allowance of
 * MAX_HEADER_VALUES. Per header alone, a thousand item headers of 10,000 values each (15 MB,
 * a few KB compressed) parsed into some 5 million objects.
 */
const OWN_HEADER_VALUES = 16;

/**
 * Bytes all the headers of an envelope may take together. SDKs write a few KB (an sdk with its
 * integrations, a trace context); 100 MiB of one string in a header (ERRATA_MAX_ENVELOPE_BYTES,
 * from some 50 KB of brotli) was scanned byte by byte and parsed on the request thread, holding
 * it for 0.3 s per request (305-327 ms for 99 MiB; 1-5 ms to refuse it now). Beyond it the
 * envelope is refused: data belongs in an item.
 */
const MAX_HEADER_BYTES = 1024 * 1024;

interface HeaderValueBudget {
  /** Values the envelope's headers may still hold beyond OWN_HEADER_VALUES each. */
  spare: number;
  /** Bytes the envelope's headers may still take (MAX_HEADER_BYTES in all). */
  bytes: number;
}

// Fatal: a header with bytes that are not UTF-8 is refused, as serde_json refuses it, instead
// of being read with replacement characters. The BOM is kept, so it fails as JSON would.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** JSON whitespace, which a stream reader skips before a value. */
function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * The JSON object that starts at the first non-whitespace byte at or after `from`, and the
 * offset just past it; undefined when only whitespace is left. The object may span lines (JSON
 * allows whitespace inside it); it must be followed by "\n" or the end of the body.
 */
function readHeader(
  body: Buffer,
  from: number,
  what: string,
  budget: HeaderValueBudget,
): { value: Record<string, unknown>; end: number } | undefined {
  let start = from;
  while (start < body.length && isWhitespace(body[start])) start += 1;
  if (start === body.length) return undefined;
  if (body[start] !== 0x7b) throw notAnObject(body.subarray(start, lineEnd(body, start)), what);
  const limit = Math.min(MAX_HEADER_VALUES, OWN_HEADER_VALUES + budget.spare);
  const { close, values } = closingBrace(body, start, what, limit, budget.bytes);
  budget.spare -= Math.max(0, values - OWN_HEADER_VALUES);
  budget.bytes -= close + 1 - start;
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body.subarray(start, close + 1)));
  } catch {
    throw invalidJson(what);
  }
  const end = close + 1;
  if (end < body.length && body[end] !== NEWLINE) {
    throw new EnvelopeFramingError(
      body[end] === 0x0d
        ? `${what} ends with "\\r\\n": end each header with "\\n" alone`
        : `${what} is followed by other bytes on its line: each header is one JSON object followed by a newline`,
    );
  }
  return { value: value as Record<string, unknown>, end };
}

/**
 * Where the object opened at `start` closes. Brackets inside strings do not count, and nesting
 * deeper than MAX_HEADER_DEPTH is refused before anything is parsed: JSON.parse of a line nested
 * millions deep holds the thread for seconds, and no SDK writes a header like that.
 */
function closingBrace(
  body: Buffer,
  start: number,
  what: string,
  limit: number,
  maxBytes: number,
): { close: number; values: number } {
  let depth = 0;
  let values = 0;
  let inString = false;
  const end = Math.min(body.length, start + maxBytes);
  for (let i = start; i < end; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c)
        i += 1; // a backslash escapes the next byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x2c) {
      if (++values > limit) throw tooManyValues(what, limit);
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++values > limit) throw tooManyValues(what, limit);
      depth += 1;
      if (depth > MAX_HEADER_DEPTH) {
        throw new EnvelopeFramingError(
          `${what} nests deeper than ${MAX_HEADER_DEPTH} levels: headers hold a few flat fields (event_id, dsn, sdk, type, length)`,
        );
      }
    } else if (byte === 0x5d || byte === 0x7d) {
      depth -= 1;
      if (depth === 0) return { close: i, values };
    }
  }
  if (end < body.length) {
    throw new EnvelopeFramingError(
      `${what} takes the envelope's headers past ${MAX_HEADER_BYTES} bytes together: ` +
        'headers hold a few fields (event_id, dsn, sdk, type, length); data belongs in an item',
    );
  }
  throw invalidJson(what);
}

function tooManyValues(what: string, limit: number): EnvelopeFramingError {
  const shared =
    limit < MAX_HEADER_VALUES ? `, all the envelope's headers ${MAX_HEADER_VALUES} beyond ${OWN_HEADER_VALUES} each` : '';
  return new EnvelopeFramingError(
    `${what} holds more than ${limit} values (a header may hold ${MAX_HEADER_VALUES}${shared}): ` +
      'headers hold a few fields (event_id, dsn, sdk, type, length); data belongs in an item',
  );
}

function invalidJson(what: string): EnvelopeFramingError {
  return new EnvelopeFramingError(`${what} is not valid JSON: each header must be one JSON object followed by a newline`);
}

/**
 * Bytes of a header that is not an object that are parsed to say whether it is JSON at all. A
 * longer line is only called not an object: JSON.parse of a line of "[" nested millions deep
 * holds the thread and gigabytes outside the heap before it fails.
 */
const MAX_PROBED_HEADER_BYTES = 4096;

/** A header that does not start with "{": the message says whether it is JSON at all. */
function notAnObject(line: Buffer, what: string): EnvelopeFramingError {
  if (line.length > MAX_PROBED_HEADER_BYTES) return new EnvelopeFramingError(`${what} must be a JSON object`);
  try {
    JSON.parse(utf8.decode(line));
  } catch {
    return invalidJson(what);
  }
  return new EnvelopeFramingError(`${what} must be a JSON object`);
}
