// Reads an ingest request body with both of its limits enforced while streaming: the bytes on
// the wire (compressed) and the bytes after decompression. A decompression bomb is cut off at
// the limit instead of being inflated into memory. Supports gzip, deflate (zlib-wrapped as
// Relay reads it, or raw as Bugsink reads it: told apart by the first byte) and br.
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { dropping, PayloadTooLargeError, UnavailableError, UserInputError } from '../core/errors.ts';
import { outcome } from '../core/outcomes.ts';

export interface BodyLimits {
  /** Bytes as sent (ERRATA_MAX_REQUEST_BYTES). */
  maxRequestBytes: number;
  /** Bytes after decompression (ERRATA_MAX_ENVELOPE_BYTES). */
  maxDecompressedBytes: number;
  /**
   * Decompressed bytes per byte received, beyond a body's first 16 MiB
   * (ERRATA_MAX_COMPRESSION_RATIO): a few hundred bytes of brotli cannot become 100 MiB of work.
   */
  maxCompressionRatio?: number;
}

/**
 * Decompressed bytes any body may reach whatever its ratio. Real payloads can compress far
 * past 1000:1 (Python's SDK sends brotli; an attachment of repeated log lines reached 22,000:1),
 * so the ratio only stops bodies larger than any SDK's usual envelope.
 */
const RATIO_FREE_BYTES = 16 * 1024 * 1024;

/**
 * Read the first line of the body (the envelope header) before the rest, and hold the rest
 * until `check` resolves: ingest authenticates a key carried only in the envelope header
 * before it inflates anything beyond that line.
 */
export interface FirstLineCheck {
  maxBytes: number;
  /** The line without its newline; throwing refuses the request with that error. */
  check(line: Buffer): Promise<void>;
}

/**
 * Bytes all request bodies being handled may hold together (ERRATA_INGEST_MEMORY_BYTES): many
 * large envelopes at once get 503 and are retried by their SDKs, instead of exhausting memory.
 * A request that needs more than all of it alone gets 413: it would be refused at every retry.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** A share of the budget for one request; release it when the request is done. */
  lease(): MemoryLease {
    let held = 0;
    return {
      take: (bytes) => {
        if (held + bytes > this.limit) return tooLarge(moreThanBudget(this.limit), this.limit);
        if (this.used + bytes > this.limit) return ingestBusy();
        this.used += bytes;
        held += bytes;
        return undefined;
      },
      release: () => {
        this.used -= held;
        held = 0;
      },
    };
  }
}

/** A request's share of ingest memory: its body, then the queued copies of its items. */
export interface MemoryLease {
  /** Takes `bytes` more, or says why not: ingest is busy (503), or the request alone is too large (413). */
  take(bytes: number): UnavailableError | PayloadTooLargeError | undefined;
  release(): void;
}

/** For callers that hold no budget (tests, tools): takes anything. */
export const UNBOUNDED_LEASE: MemoryLease = { take: () => undefined, release: () => {} };

type Encoding = 'identity' | 'gzip' | 'deflate' | 'br';

export async function readBody(
  req: IncomingMessage,
  limits: BodyLimits,
  lease: Pick<MemoryLease, 'take'> = UNBOUNDED_LEASE,
  firstLine?: FirstLineCheck,
): Promise<Buffer> {
  const encoding = contentEncoding(req.headers['content-encoding']);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxRequestBytes) throw requestTooLarge(limits.maxRequestBytes);
  return collectBody(req, encoding, limits, lease, firstLine);
}

/**
 * Plain stream events rather than stream.pipeline: pipeline allocates an AbortController per
 * call and an AbortError (with its stack) when it finishes, a measurable share of ingest's CPU.
 */
function collectBody(
  req: IncomingMessage,
  encoding: Encoding,
  limits: BodyLimits,
  lease: Pick<MemoryLease, 'take'>,
  firstLine: FirstLineCheck | undefined,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Made on the first bytes, which tell the two kinds of deflate apart.
    let decode: Transform | undefined;
    const ratio = limits.maxCompressionRatio ?? Infinity;
    const chunks: Buffer[] = [];
    // A compressed body is inflated once all of it has arrived, and before that only as far as
    // its first line when that line is checked: a client that sent a few KB of brotli and then
    // stalled held megabytes of output against every request's budget until a timeout.
    const held: Buffer[] = [];
    let wireEnded = false;
    let wireBytes = 0;
    let bodyBytes = 0;
    let done = false;
    // The first-line check: 'waiting' for the line, 'checking' it (input paused), then 'passed'.
    let lineState: 'waiting' | 'checking' | 'passed' = firstLine ? 'waiting' : 'passed';
    let endedWhileChecking = false;
    // A body read in one chunk that is a buffer of its own (most envelopes: node's parser copies
    // each socket read into one) is used as it is: a copy would be one more allocation per
    // request, freed only by a full collection once a loaded server has promoted it
    // (docs/benchmarks.md, 2026-12-05 (second)). A decompressor's chunk is a slice of its 16 KiB
    // output buffer, which the body would keep alive: that one is copied. Chunks are never
    // written to after they arrive.
    const joined = () => {
      const only = chunks.length === 1 ? chunks[0]! : undefined;
      return only && only.length === only.buffer.byteLength ? only : Buffer.concat(chunks, bodyBytes);
    };

    const finish = (error?: Error) => {
      if (done) return;
      if (!error && lineState === 'waiting') {
        // The body ended without a newline: it is all header line.
        endedWhileChecking = true;
        return checkFirstLine(bodyBytes);
      }
      if (!error && lineState === 'checking') {
        endedWhileChecking = true;
        return;
      }
      done = true;
      req.off('data', onWire);
      if (!error) return resolve(joined());
      // Nothing refused stays reachable (the 'end' listener outlives the lease) until the connection closes.
      chunks.length = 0;
      held.length = 0;
      decode?.destroy();
      // The rest of the upload is read and discarded instead of the connection being torn
      // down, so the client still reads the answer.
      req.resume();
      reject(error);
    };
    const checkFirstLine = (lineBytes: number) => {
      lineState = 'checking';
      req.pause();
      decode?.pause();
      const line = joined().subarray(0, lineBytes);
      firstLine!.check(line).then(
        () => {
          lineState = 'passed';
          if (endedWhileChecking) return finish();
          // What was written to the decoder before the line came out is inflated once the rest
          // has arrived too, as the rest is.
          if (wireEnded) decode?.resume();
          req.resume();
        },
        (error: Error) => {
          lineState = 'passed';
          finish(error);
        },
      );
    };
    const onBody = (chunk: Buffer) => {
      if (done) return;
      const before = bodyBytes;
      bodyBytes += chunk.length;
      if (bodyBytes > limits.maxDecompressedBytes) return finish(bodyTooLarge(limits.maxDecompressedBytes));
      if (encoding !== 'identity' && bodyBytes > RATIO_FREE_BYTES && bodyBytes > wireBytes * ratio)
        return finish(ratioTooHigh(ratio));
      const refusal = lease.take(chunk.length);
      if (refusal) return finish(refusal);
      chunks.push(chunk);
      if (lineState !== 'waiting') return;
      // The body's first line as it is, up to its first newline: what Relay reads for a key
      // when the request carries none (envelope-auth.ts), empty lines before a header included.
      const newline = chunk.indexOf(0x0a);
      if (newline !== -1 && before + newline <= firstLine!.maxBytes) return checkFirstLine(before + newline);
      if (bodyBytes > firstLine!.maxBytes) return finish(firstLineTooLong(firstLine!.maxBytes));
    };
    const onWire = (chunk: Buffer) => {
      wireBytes += chunk.length;
      if (wireBytes > limits.maxRequestBytes) return finish(requestTooLarge(limits.maxRequestBytes));
      if (encoding === 'identity') return onBody(chunk);
      decode ??= startDecoder(encoding, chunk);
      if (lineState !== 'waiting') {
        const refusal = lease.take(chunk.length);
        if (refusal) return finish(refusal);
        held.push(chunk);
        return;
      }
      if (!decode.write(chunk)) {
        req.pause();
        decode.once('drain', () => done || lineState === 'checking' || req.resume());
      }
    };
    const unreadable = () => finish(unreadableBody('the request body could not be read to its end: send it again'));

    req.on('data', onWire);
    const startDecoder = (kind: Exclude<Encoding, 'identity'>, first: Buffer): Transform => {
      const stream = decoder(kind, first);
      stream.on('data', onBody);
      stream.once('end', () => finish());
      stream.on('error', () =>
        finish(unreadableBody(`the body is not valid ${kind} data: fix the Content-Encoding header or the compression`)),
      );
      return stream;
    };

    req.once('end', () => {
      wireEnded = true;
      if (!decode) return finish();
      for (const chunk of held.splice(0)) decode.write(chunk);
      decode.end();
      if (lineState === 'passed') decode.resume();
    });
    req.on('aborted', unreadable);
    // `on`, not `once`: finish() is idempotent, and an error event without a listener would throw.
    req.on('error', unreadable);
  });
}

/** Ingest's memory budget is spent (bodies, or their queued copies): SDKs that honour Retry-After wait rather than retry at once. */
function ingestBusy(): UnavailableError {
  return new UnavailableError('ingest is busy with other large requests: retry shortly', { retryAfterSeconds: 1 });
}

function contentEncoding(header: string | undefined): Encoding {
  // sentry-ruby sends an empty value and old Android SDKs "UTF-8": both mean uncompressed.
  const value = (header ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity' || value === 'utf-8') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'deflate') return 'deflate';
  if (value === 'br') return 'br';
  throw unreadableBody(`unsupported Content-Encoding "${value.slice(0, 32)}": use gzip, deflate or br, or none`);
}

/**
 * One zlib stream, paused, resumed and destroyed as such. deflate: zlib-wrapped data starts
 * with 0x78, anything else is taken as a raw deflate stream. (A wrapper that sniffed inside
 * _transform ignored back-pressure and outlived destroy(): a refused deflate body was still
 * inflated to its end.)
 */
function decoder(encoding: Exclude<Encoding, 'identity'>, first: Buffer): Transform {
  if (encoding === 'gzip') return createGunzip();
  if (encoding === 'br') return createBrotliDecompress();
  return first[0] === 0x78 ? createInflate() : createInflateRaw();
}

/** A body that cannot be read: the request as a whole counted, its items unknown. */
function unreadableBody(message: string): UserInputError {
  return dropping(new UserInputError(message), outcome('invalid_payload'));
}

/** Every body-level refusal for size drops the request as a whole, its items unknown. */
function tooLarge(message: string, limit?: number): PayloadTooLargeError {
  return dropping(new PayloadTooLargeError(message, limit), outcome('too_large'));
}

function requestTooLarge(limit: number): PayloadTooLargeError {
  return tooLarge(
    `request body exceeds ${formatBytes(limit)} as sent (ERRATA_MAX_REQUEST_BYTES): send fewer or smaller items per request`,
    limit,
  );
}

function ratioTooHigh(ratio: number): PayloadTooLargeError {
  return tooLarge(
    `decompressed body is more than ${ratio} times its compressed size (ERRATA_MAX_COMPRESSION_RATIO): ` +
      'send the data uncompressed or with gzip',
  );
}

function firstLineTooLong(limit: number): PayloadTooLargeError {
  return tooLarge(
    `envelope header exceeds ${formatBytes(limit)}: send the DSN key in X-Sentry-Auth or as sentry_key, ` +
      'or a shorter header (event_id, dsn, sdk name and version)',
  );
}

function moreThanBudget(limit: number): string {
  return (
    `the request needs more than the ${formatBytes(limit)} that ingest holds for all requests at once ` +
    '(ERRATA_INGEST_MEMORY_BYTES; its body, compressed and not, and the queued copies of its items): ' +
    'send a smaller request, or raise ERRATA_INGEST_MEMORY_BYTES'
  );
}

function bodyTooLarge(limit: number): PayloadTooLargeError {
  return tooLarge(
    `decompressed body exceeds ${formatBytes(limit)} (ERRATA_MAX_ENVELOPE_BYTES): send fewer or smaller items per request`,
    limit,
  );
}

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
