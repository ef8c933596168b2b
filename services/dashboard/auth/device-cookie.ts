// The device cookie: a browser that signed in to an account before, so that its sign-ins are
// not held when others' failures hold the account (sign-in-throttle.ts). Its value is
// `<user id>.<nonce>.<MAC>`, the MAC an HMAC-SHA256 keyed by the user's stored password hash:
// it proves a past sign-in without a table or a server-wide secret (one the roles would have to
// share), and a new password, a new hash, voids every such cookie of the account.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A year: the device stays trusted until its password changes, or a year without signing in there. */
export const DEVICE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

function mac(passwordHash: string, userId: number, nonce: string): string {
  return createHmac('sha256', passwordHash).update(`errata-device\0${userId}\0${nonce}`).digest('base64url');
}

/** A new device cookie's value for the user who just signed in with this stored hash. */
export function mintDeviceCookie(userId: number, passwordHash: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${userId}.${nonce}.${mac(passwordHash, userId, nonce)}`;
}

/** The cookie's value when it has a device cookie's shape, so that junk costs no lookup. */
export function deviceCookieShaped(value: string | undefined): string | undefined {
  return value && /^\d{1,15}\.[\w-]{22}\.[\w-]{43}$/.test(value) ? value : undefined;
}

/**
 * The throttle's key for this device when the cookie was minted for this user under the
 * password they have now; otherwise undefined (no cookie, another account's, a forged or an
 * outdated one), and the attempt is throttled as anyone's.
 */
export function trustedDevice(
  cookie: string | undefined,
  user: { id: number; passwordHash: string | null } | undefined,
): string | undefined {
  if (!cookie || !user?.passwordHash) return undefined;
  const [id, nonce, given, ...rest] = cookie.split('.');
  if (rest.length > 0 || id !== String(user.id) || !nonce || !given) return undefined;
  const expected = Buffer.from(mac(user.passwordHash, user.id, nonce));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? `${user.id}.${nonce}` : undefined;
}
