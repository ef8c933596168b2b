// Envelope framing, as SDKs send it to /api/{id}/envelope/ (ingest role, first step of the
// path of an event). Framing is validated strictly and synchronously so the client hears about
// a broken envelope at once; item payloads are opaque bytes here and parsed later.
//
//   Envelope = Headers { "\n" Item } [ "\n" ]      Item = Headers "\n" Payload
//
// With a `length` header the payload is exactly that many bytes and must be followed by "\n"
// or the end; without it the payload runs to the next "\n" or the end.
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
  const headerEnd = lineEnd(body, 0);
  const headers = parseJsonObject(body.subarray(0, headerEnd), 'envelope header');
  const items: EnvelopeItem[] = [];
  let offset = headerEnd + 1;
  while (offset < body.length) {
    const itemNumber = items.length + 1;
    if (itemNumber > limits.maxItems) {
      throw new TooManyItemsError(
        `the envelope has more than ${limits.maxItems} items (ERRATA_MAX_ENVELOPE_ITEMS): send fewer items per request`,
      );
    }
    const itemHeaderEnd = lineEnd(body, offset);
    const itemHeaders = parseItemHeaders(body.subarray(offset, itemHeaderEnd), itemNumber);
    offset = itemHeaderEnd + 1;
    let payload: Buffer;
    if (itemHeaders.length !== undefined) {
      const remaining = Math.max(0, body.length - offset);
      if (itemHeaders.length > remaining) {
        throw new EnvelopeFramingError(
          `envelope item ${itemNumber} (${itemHeaders.type}) declares length ${itemHeaders.length} ` +
            `but only ${remaining} bytes follow its header: fix the length or send the whole payload`,
        );
      }
      payload = body.subarray(offset, offset + itemHeaders.length);
      offset += itemHeaders.length;
      if (offset < body.length && body[offset] !== NEWLINE) {
        throw new EnvelopeFramingError(
          `envelope item ${itemNumber} (${itemHeaders.type}): expected a newline after its ` +
            `${itemHeaders.length}-byte payload; the length header does not match the payload`,
        );
      }
      offset += 1;
    } else {
      const payloadEnd = offset < body.length ? lineEnd(body, offset) : body.length;
      payload = body.subarray(Math.min(offset, body.length), payloadEnd);
      offset = payloadEnd + 1;
    }
    items.push({ headers: itemHeaders, payload });
  }
  return { headers, items };
}

function lineEnd(body: Buffer, from: number): number {
  const index = body.indexOf(NEWLINE, from);
  return index === -1 ? body.length : index;
}

function parseItemHeaders(line: Buffer, itemNumber: number): ItemHeaders {
  const headers = parseJsonObject(line, `envelope item ${itemNumber} header`);
  if (typeof headers.type !== 'string' || headers.type === '') {
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

function parseJsonObject(bytes: Buffer, what: string): Record<string, unknown> {
  // Checked before parsing: JSON.parse of a line nested millions deep holds the thread for
  // seconds and takes hundreds of megabytes, and no SDK writes a header like that.
  if (nestsDeeperThan(bytes, MAX_HEADER_DEPTH)) {
    throw new EnvelopeFramingError(
      `${what} nests deeper than ${MAX_HEADER_DEPTH} levels: headers hold a few flat fields (event_id, dsn, sdk, type, length)`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new EnvelopeFramingError(`${what} is not valid JSON: each header must be one line of JSON followed by a newline`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new EnvelopeFramingError(`${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Whether arrays and objects in JSON text nest deeper than `limit` (brackets inside strings do not count). */
function nestsDeeperThan(bytes: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === 0x5c)
        i += 1; // a backslash escapes the next byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
  return false;
}
