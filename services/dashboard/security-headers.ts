// The headers every dashboard response carries. The policy allows only our own script and
// stylesheet (no inline script or style attribute, ever), images from us or data: URLs, no
// plugins, no <base>, no framing (clickjacking) and forms posting only to us.
import type Koa from 'koa';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

export function setSecurityHeaders(ctx: Koa.Context): void {
  ctx.set(SECURITY_HEADERS);
}
