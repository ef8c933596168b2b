// The shipped verifier against what Errata signs (core/alerts), and against a plain node:crypto
// recomputation, over a body with characters the encoder escapes.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeWebhookBody } from '../../services/core/alerts/webhook-body.ts';
import { mintSigningSecret, webhookSignature } from '../../services/core/alerts/webhook-signature.ts';
import { verifyErrataWebhook } from './verify-errata-webhook.ts';

const secret = mintSigningSecret();
const now = 1_790_000_000;
const body = encodeWebhookBody({ kind: 'new_issue', title: 'Error: <script>alert(1)</script> & more', body: '', url: '' });

describe('webhook body and signature', () => {
  it('escapes <, > and & and stays on one line', () => {
    expect(body).toBe(
      '{"kind":"new_issue","title":"Error: \\u003cscript\\u003ealert(1)\\u003c/script\\u003e \\u0026 more","body":"","url":""}',
    );
    expect(encodeWebhookBody({ title: 'a\nb\u2028' })).not.toContain('\n');
    expect(JSON.parse(body).title).toBe('Error: <script>alert(1)</script> & more');
  });

  it('signs as SPEC says: HMAC-SHA256 keyed with the hex secret as text over "<t>.<body>"', () => {
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(webhookSignature(secret, now, body)).toBe(`t=${now},v1=${expected}`);
    expect(() => webhookSignature('', now, body)).toThrow(/empty secret/);
  });

  it('the shipped verifier accepts what Errata signs and refuses everything else', () => {
    const header = webhookSignature(secret, now, body);
    const rawBody = Buffer.from(body);
    expect(verifyErrataWebhook({ secret, header, rawBody, now })).toEqual({ ok: true, timestamp: now });
    expect(verifyErrataWebhook({ secret, header, rawBody, now: now + 300 }).ok).toBe(true);
    const refused = (options: Partial<Parameters<typeof verifyErrataWebhook>[0]>) =>
      verifyErrataWebhook({ secret, header, rawBody, now, ...options });
    expect(refused({ now: now + 301 })).toMatchObject({ ok: false, reason: expect.stringMatching(/too far/) });
    expect(refused({ now: now - 301 }).ok).toBe(false);
    expect(refused({ rawBody: Buffer.from(JSON.stringify(JSON.parse(body))) })).toMatchObject({
      ok: false,
      reason: 'signature does not match',
    });
    expect(refused({ secret: mintSigningSecret() }).ok).toBe(false);
    expect(refused({ header: undefined }).ok).toBe(false);
    expect(refused({ header: header.toUpperCase() }).ok).toBe(false);
    expect(refused({ header: header.replace('t=', 't=-') }).ok).toBe(false);
    expect(refused({ header: header.slice(0, -1) }).ok).toBe(false);
    expect(() => refused({ secret: '' })).toThrow(/empty secret/);
  });
});
