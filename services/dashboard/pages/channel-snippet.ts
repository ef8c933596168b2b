// The signature-verification snippet an alert channel's page offers to copy: a short Node
// function for the receiver, built from the header name the dispatcher signs with
// (core/alerts/webhook-signature.ts) and the same rules as
// examples/webhook-receiver/verify-errata-webhook.ts (HMAC-SHA256 keyed with the secret as text
// over `<t>.<raw body>`, a 300-second window, a constant-time comparison). The channel page's
// test runs this very text against a delivery a real receiver got.
import { SIGNATURE_HEADER } from '../../core/alerts/webhook-signature.ts';

export function verificationSnippet(): string {
  const header = SIGNATURE_HEADER.toLowerCase();
  return [
    `// Verifies an Errata webhook (${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex>). rawBody: the`,
    '// request body as received (a Buffer): never re-serialized JSON.',
    "const { createHmac, timingSafeEqual } = require('node:crypto');",
    '',
    'function verifyErrataWebhook(secret, header, rawBody, toleranceSeconds = 300) {',
    "  if (!secret) throw new Error('set the channel signing secret');",
    "  const match = /^t=(\\d{1,15}),v1=([0-9a-f]{64})$/.exec(String(header ?? '').trim());",
    '  if (!match) return false;',
    '  if (Math.abs(Date.now() / 1000 - Number(match[1])) > toleranceSeconds) return false;',
    "  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))",
    '    .update(`${match[1]}.`)',
    '    .update(rawBody)',
    '    .digest();',
    "  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));",
    '}',
    '',
    '// In the request handler, with the secret Reveal shows:',
    `// verifyErrataWebhook(process.env.ERRATA_SIGNING_SECRET, req.headers['${header}'], rawBody)`,
  ].join('\n');
}
