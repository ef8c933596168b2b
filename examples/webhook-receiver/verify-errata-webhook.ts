// Verifies an Errata webhook (X-Errata-Signature: t=<unix seconds>,v1=<64 lowercase hex>).
// Self-contained, node:crypto only: copy it into your receiver. Follows the receiver rules of
// Errata's webhook contract:
//   - refuse to run with an empty secret;
//   - `t` must be digits, `v1` exactly 64 lowercase hex characters;
//   - `t` must be within `toleranceSeconds` (300) of the local clock, against replays;
//   - v1 = HMAC-SHA256(key = the secret as UTF-8 text, message = `<t>.` + the raw body bytes),
//     compared in constant time. Use the bytes as received, never re-serialized JSON: the body
//     escapes <, > and & as \u003c, \u003e and \u0026, which a re-encoder would not reproduce.
// Unknown payload fields and kinds are to be ignored, not refused: the contract is additive.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyOptions {
  /** The channel's signing secret (64 hex characters), as shown by Reveal. */
  secret: string;
  /** The X-Errata-Signature header value. */
  header: string | undefined;
  /** The request body exactly as received. */
  rawBody: Buffer;
  toleranceSeconds?: number;
  /** Unix seconds; defaults to the local clock. */
  now?: number;
}

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: string };

const HEADER = /^t=(\d{1,15}),v1=([0-9a-f]{64})$/;

export function verifyErrataWebhook(options: VerifyOptions): VerifyResult {
  if (!options.secret) throw new Error('refusing to verify webhooks with an empty secret');
  const match = HEADER.exec(options.header?.trim() ?? '');
  if (!match) return { ok: false, reason: 'X-Errata-Signature is not t=<digits>,v1=<64 lowercase hex>' };
  const timestamp = Number(match[1]);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) {
    return { ok: false, reason: `timestamp ${timestamp} is too far from the local clock (${now})` };
  }
  const expected = createHmac('sha256', Buffer.from(options.secret, 'utf8'))
    .update(`${match[1]}.`, 'utf8')
    .update(options.rawBody)
    .digest();
  const received = Buffer.from(match[2]!, 'hex');
  if (!timingSafeEqual(expected, received)) return { ok: false, reason: 'signature does not match' };
  return { ok: true, timestamp };
}
