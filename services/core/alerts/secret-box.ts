// Channel signing secrets at rest. Signing needs the secret itself, so unlike tokens it cannot
// be kept as a hash: it is sealed with AES-256-GCM under the instance's secrets key
// (ERRATA_SECRETS_KEY, or standalone a key file in the data directory) and opened only to sign
// a delivery or for Reveal. A database dump alone does not give the secrets away.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { UnavailableError } from '../errors.ts';

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      try {
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // What OpenSSL says ("unable to authenticate data") told nobody that the key had changed.
        throw new UnavailableError(
          "this channel's signing secret was sealed with another secrets key: set ERRATA_SECRETS_KEY " +
            "(or the data directory's secrets.key) back to that key, or rotate the channel's secret",
        );
      }
    },
  };
}

/** Where no key is configured: alert channels cannot be used, and this says how to fix it. */
export function missingSecretBox(): SecretBox {
  const fail = (): never => {
    throw new UnavailableError(
      'alert channels need ERRATA_SECRETS_KEY (64 hex characters, e.g. from `openssl rand -hex 32`), the same in every role',
    );
  };
  return { seal: fail, open: fail };
}
