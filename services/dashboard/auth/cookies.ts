// The dashboard's three cookies: the session (a random token, only its hash stored), the
// sign-in forms' CSRF cookie (double-submit, before there is a session) and the device cookie
// of a browser that signed in before (device-cookie.ts). All HttpOnly and SameSite=Lax on Path=/;
// when ERRATA_BASE_URL is https they are also Secure and carry the __Host- prefix, which browsers
// accept only from a secure origin, without a Domain and on Path=/, so no sibling subdomain can
// plant or overwrite them.
import type Koa from 'koa';
import { SESSION_ABSOLUTE_MS } from '../../core/people/sessions.ts';

export interface CookieJar {
  session: string;
  csrf: string;
  device: string;
  secure: boolean;
}

export function cookieNames(baseUrl: string): CookieJar {
  const secure = new URL(baseUrl).protocol === 'https:';
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}errata_session`, csrf: `${prefix}errata_csrf`, device: `${prefix}errata_device`, secure };
}

/** Sets a cookie; maxAgeSeconds 0 clears it. Written by hand: Koa's cookies refuse Secure on the plain-HTTP hop behind a TLS proxy. */
export function setCookie(ctx: Koa.Context, jar: CookieJar, name: string, value: string, maxAgeSeconds: number): void {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (jar.secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

/** A session cookie lives as long as the session can: the server decides sooner ends. */
export const SESSION_COOKIE_MAX_AGE = Math.floor(SESSION_ABSOLUTE_MS / 1000);

/** The CSRF cookie of the sign-in forms outlives a form left open over lunch. */
export const CSRF_COOKIE_MAX_AGE = 24 * 60 * 60;

export function readCookie(ctx: Koa.Context, name: string): string | undefined {
  return ctx.cookies.get(name) || undefined;
}
