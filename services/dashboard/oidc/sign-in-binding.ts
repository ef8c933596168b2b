// Binds an OpenID Connect sign-in to the browser that started it. The start sets a short-lived
// HttpOnly cookie holding 32 random bytes; the state, nonce and PKCE verifier sent on are hashes
// of it, so nothing is stored on the server (any replica can take the callback) and nobody who
// sees the provider's side (the state, nonce and code challenge) can work the cookie out. The
// callback recomputes the state from the cookie and compares it in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Ten minutes to sign in at the provider; after that the browser drops the cookie. */
export const BINDING_MAX_AGE_SECONDS = 10 * 60;

export interface SignInChecks {
  state: string;
  nonce: string;
  /** PKCE code_verifier: 43 characters of base64url, as RFC 7636 allows. */
  verifier: string;
}

/** The cookie's value: the random binding, then where to go after signing in (base64url). */
export function mintBinding(next: string, random = randomBytes): string {
  return `${random(32).toString('base64url')}.${Buffer.from(next).toString('base64url')}`;
}

export function checksOf(cookie: string): SignInChecks {
  const binding = cookie.split('.')[0] ?? '';
  const derive = (purpose: string) => createHash('sha256').update(`errata-oidc-${purpose}:${binding}`).digest('base64url');
  return { state: derive('state'), nonce: derive('nonce'), verifier: derive('verifier') };
}

/** Where the start said to go; the caller still checks it is one of our paths. */
export function nextOf(cookie: string): string {
  return Buffer.from(cookie.split('.')[1] ?? '', 'base64url').toString('utf8');
}

/** True when the state the provider sent back is the one this browser's cookie makes. */
export function stateMatches(cookie: string | undefined, returned: unknown): boolean {
  if (!cookie || typeof returned !== 'string' || !/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]*$/.test(cookie)) return false;
  // Hashing both sides first gives equal lengths, which timingSafeEqual needs.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(checksOf(cookie).state), digest(returned));
}
