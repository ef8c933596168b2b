// Cross-site request forgery: a state-changing request (every POST) must come from our own
// origin and carry a token only our pages know. The origin is the browser's Origin header or,
// when it sends none, Sec-Fetch-Site: same-origin, compared with ERRATA_BASE_URL's origin; a
// proxy that rewrites Host does not matter, but a wrong ERRATA_BASE_URL does, so a refusal names
// both origins and the setting. The token is derived from the session's (only that cookie's
// holder can compute it) or, before a session, is the double-submit CSRF cookie.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';

/** What a refusal page says: what did not match, and what fixes it. */
export interface CsrfRefusal {
  reason: string;
  fix: string;
}

const BASE_URL_FIX =
  'If you opened the dashboard at the address the browser shows, set ERRATA_BASE_URL to that address (scheme, host and port) and restart Errata.';

export function checkOrigin(ctx: Koa.Context, baseUrl: string): CsrfRefusal | undefined {
  const expected = new URL(baseUrl).origin;
  const origin = ctx.get('Origin');
  if (origin) {
    if (origin === expected) return undefined;
    return { reason: `This request came from ${origin.slice(0, 200)} but ERRATA_BASE_URL is ${expected}.`, fix: BASE_URL_FIX };
  }
  const site = ctx.get('Sec-Fetch-Site');
  if (site === 'same-origin') return undefined;
  if (site) {
    return { reason: `This request came from another site (Sec-Fetch-Site: ${site.slice(0, 50)}), not from ${expected}.`, fix: BASE_URL_FIX };
  }
  return {
    reason: `This request said neither where it came from (no Origin header) nor whether it was same-origin (no Sec-Fetch-Site header), so it cannot be shown to come from ${expected}.`,
    fix: 'Use a current browser; if a proxy in front of Errata removes the Origin header, configure it to pass the header through.',
  };
}

/** The token a session's forms carry: bound to the session, useless without its cookie. */
export function sessionCsrfToken(sessionToken: string): string {
  return createHash('sha256').update(`errata-csrf\0${sessionToken}`).digest('base64url');
}

export function mintCsrfCookie(): string {
  return randomBytes(32).toString('base64url');
}

export function tokensMatch(sent: string | null | undefined, expected: string | undefined): boolean {
  if (!sent || !expected) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const TOKEN_REFUSAL: CsrfRefusal = {
  reason: "This form's security token did not match the one your browser holds for this site (the page may be from an earlier session, or cookies are blocked).",
  fix: 'Open the page again and resubmit. If it keeps happening, make sure cookies are allowed for this site and that ERRATA_BASE_URL is the address you opened (its scheme decides whether the cookie is sent only over https).',
};
