// Minting and hashing secrets (agent tokens, DSN public keys). Plaintext secrets are shown
// once and never stored: stores keep only the SHA-256, which is enough for high-entropy random
// tokens, and tokens are found by that digest, so no comparison ever touches a stored secret.
import { createHash, randomBytes } from 'node:crypto';

export const AGENT_TOKEN_PREFIX = 'errata_agent_';
/** Source map upload tokens; an agent token also starts with this, but is never found as one. */
export const UPLOAD_TOKEN_PREFIX = 'errata_';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type RandomSource = (bytes: number) => Buffer;

/** Base62 so a token is one "word" when double-clicked; rejection sampling keeps it unbiased. */
export function randomBase62(length: number, random: RandomSource = randomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** An agent token: 43 base62 characters carry about 256 bits. */
export function mintAgentToken(random: RandomSource = randomBytes): string {
  return `${AGENT_TOKEN_PREFIX}${randomBase62(43, random)}`;
}

/** A source map upload token: `errata_` and 43 base62 characters. */
export function mintUploadToken(random: RandomSource = randomBytes): string {
  return `${UPLOAD_TOKEN_PREFIX}${randomBase62(43, random)}`;
}

/** 32 hex characters, the shape Sentry's DSN public keys have. */
export function mintPublicKey(random: RandomSource = randomBytes): string {
  return random(16).toString('hex');
}

export function hashSecret(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}
