// Signing a person in, the one way every sign-in ends (password, setup and reset links, single
// sign-on): the session the browser came with is ended (rotation), a new one starts, its cookie
// is set, the browser becomes a trusted device of the account (device-cookie.ts) when the account
// has a password, and it goes on with a 303.
import type Koa from 'koa';
import { endSession, startSession } from '../../core/people/sessions.ts';
import { credentialsOf } from '../../core/people/users.ts';
import type { UserStore } from '../../core/ports/user-store.ts';
import { SESSION_COOKIE_MAX_AGE, setCookie, type CookieJar } from './cookies.ts';
import { currentSession } from './current-session.ts';
import { DEVICE_COOKIE_MAX_AGE, mintDeviceCookie } from './device-cookie.ts';

export async function beginSession(
  users: UserStore,
  jar: CookieJar,
  ctx: Koa.Context,
  userId: number,
  next: string,
): Promise<void> {
  const previous = await currentSession(users, jar, ctx);
  if (previous) await endSession(users, previous.user.id, previous.session.id);
  const { token } = await startSession(users, userId, new Date(), {
    userAgent: ctx.get('User-Agent') || null,
    address: ctx.ip || null,
  });
  setCookie(ctx, jar, jar.session, token, SESSION_COOKIE_MAX_AGE);
  const passwordHash = (await credentialsOf(users, userId))?.passwordHash;
  if (passwordHash) setCookie(ctx, jar, jar.device, mintDeviceCookie(userId, passwordHash), DEVICE_COOKIE_MAX_AGE);
  ctx.redirect(next);
  ctx.status = 303;
}
