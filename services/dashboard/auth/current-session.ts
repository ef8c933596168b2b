// Who the browser is: the session its cookie names, resumed (idle and absolute expiry checked,
// last-seen touched) with its user, or nobody.
import type Koa from 'koa';
import { resumeSession } from '../../core/people/sessions.ts';
import type { Session, User, UserStore } from '../../core/ports/user-store.ts';
import { readCookie, type CookieJar } from './cookies.ts';

export interface Signed {
  /** The session cookie's value; the CSRF token of its forms is derived from it. */
  token: string;
  session: Session;
  user: User;
}

export async function currentSession(users: UserStore, jar: CookieJar, ctx: Koa.Context): Promise<Signed | undefined> {
  const token = readCookie(ctx, jar.session);
  if (!token) return undefined;
  const resumed = await resumeSession(users, token, new Date());
  return resumed && { token, ...resumed };
}
