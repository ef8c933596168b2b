// The signature of a webhook request (SPEC §6): `X-Errata-Signature: t=<unix seconds>,v1=<hex>`,
// where v1 is HMAC-SHA256 keyed with the signing secret as UTF-8 text (the 64-character hex
// string itself, not its bytes) over `<t>.<raw body>`. Receivers verify with
// examples/webhook-receiver/verify-errata-webhook.ts.
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Errata-Signature';

export function webhookSignature(secret: string, unixSeconds: number, body: string): string {
  if (secret.length === 0) throw new Error('refusing to sign with an empty secret');
  const v1 = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/** A channel's signing secret: 32 bytes from the CSPRNG as 64 lowercase hex characters. */
export function mintSigningSecret(random: (bytes: number) => Buffer = randomBytes): string {
  return random(32).toString('hex');
}
