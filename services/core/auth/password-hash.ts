// Password hashing for people (agents use random tokens, secrets.ts). scrypt from node:crypto at
// OWASP's parameters (N=2^17, r=8, p=1), a 16-byte salt and a 64-byte key, written in the PHC
// string format `$scrypt$ln=17,r=8,p=1$<salt>$<key>` so the parameters travel with each hash and
// can be raised later (needsRehash says when a stored hash is weaker than today's). Each hash
// takes ~100+ ms and 128 MiB, so a semaphore caps how many run at once, and how many may wait:
// a burst of sign-ins must not queue minutes of hashing ahead of everyone else's.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { UnavailableError } from '../errors.ts';
import { Semaphore } from './semaphore.ts';

interface ScryptParams {
  /** log2 of N, the CPU/memory cost. */
  ln: number;
  r: number;
  p: number;
}

/** OWASP Password Storage Cheat Sheet: N=2^17, r=8, p=1. */
const OWASP_SCRYPT: ScryptParams = { ln: 17, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 64;
/** Two at once on a small machine: 256 MiB of scrypt memory at most. */
const DEFAULT_MAX_CONCURRENT = 2;
/** Hashes that may wait for a slot: about half a second of work at two at once. */
const DEFAULT_MAX_WAITING = 8;
const BUSY_RETRY_SECONDS = 2;
/** Longer passwords are refused before hashing, so no one can make a hash arbitrarily slow. */
export const MAX_PASSWORD_LENGTH = 1024;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Whether `password` matches `encoded`. With no encoded hash (an unknown email) it still
   * hashes once and answers false, so an unknown account takes as long as a wrong password.
   */
  verify(password: string, encoded: string | null | undefined): Promise<boolean>;
  /** True when `encoded` was made with weaker parameters than this hasher's (rehash at sign-in). */
  needsRehash(encoded: string): boolean;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface Decoded {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

function decode(encoded: string): Decoded | undefined {
  const match = PHC.exec(encoded);
  if (!match) return undefined;
  const [, ln, r, p, salt, key] = match;
  return {
    params: { ln: Number(ln), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt!, 'base64'),
    key: Buffer.from(key!, 'base64'),
  };
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

function encode(params: ScryptParams, salt: Buffer, key: Buffer): string {
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

function derive(password: string, salt: Buffer, params: ScryptParams, keyLength: number): Promise<Buffer> {
  const N = 2 ** params.ln;
  const options: ScryptOptions = {
    N,
    r: params.r,
    p: params.p,
    // OpenSSL needs 128·r·(N + p + 2) bytes; node's default cap (32 MiB) is below N=2^17's.
    maxmem: 128 * params.r * (N + params.p + 2) + 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export function createPasswordHasher(
  options: { params?: ScryptParams; maxConcurrent?: number; maxWaiting?: number; random?: (bytes: number) => Buffer } = {},
): PasswordHasher {
  const params = options.params ?? OWASP_SCRYPT;
  const random = options.random ?? randomBytes;
  const slots = new Semaphore(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT, {
    maxWaiting: options.maxWaiting ?? DEFAULT_MAX_WAITING,
    full: () =>
      new UnavailableError(`too many passwords are being checked at once: try again in ${BUSY_RETRY_SECONDS} seconds`, {
        retryAfterSeconds: BUSY_RETRY_SECONDS,
      }),
  });
  // What an unknown account is checked against: same parameters and key length, so the same
  // cost. Made without a slot: a stand-in refused as busy, kept, would answer every unknown
  // email at once with 503 and every known one after a hash, telling who has an account.
  let stand: Decoded | undefined;

  const hash = (password: string) =>
    slots.run(async () => {
      const salt = random(SALT_BYTES);
      return encode(params, salt, await derive(password, salt, params, KEY_BYTES));
    });

  return {
    hash,
    async verify(password, encoded) {
      if (password.length > MAX_PASSWORD_LENGTH) return false;
      const decoded = encoded ? decode(encoded) : undefined;
      if (!decoded) {
        const against = (stand ??= { params, salt: random(SALT_BYTES), key: Buffer.alloc(KEY_BYTES) });
        await slots.run(() => derive(password, against.salt, against.params, against.key.length));
        return false;
      }
      const key = await slots.run(() => derive(password, decoded.salt, decoded.params, decoded.key.length));
      return timingSafeEqual(key, decoded.key);
    },
    needsRehash(encoded) {
      const decoded = decode(encoded);
      return !decoded || decoded.params.ln < params.ln || decoded.params.r < params.r || decoded.params.p < params.p;
    },
  };
}
