// Dashboard sessions: a random token for the cookie, only its SHA-256 stored (like agent
// tokens, secrets.ts). A session ends after SESSION_IDLE_MS without a request or
// SESSION_ABSOLUTE_MS after sign-in, whichever comes first; an expired session found is deleted.
// Time comes in as `now` so tests can move it.
import { randomBytes } from 'node:crypto';
import { hashSecret, type RandomSource } from '../auth/secrets.ts';
import type { Session, User, UserStore } from '../ports/user-store.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Two weeks without a request signs a person out (Sentry and Django default to two weeks too). */
export const SESSION_IDLE_MS = 14 * DAY_MS;
/** However active, a session ends 30 days after sign-in, so a stolen cookie does not live forever. */
export const SESSION_ABSOLUTE_MS = 30 * DAY_MS;
/** last_seen_at is written at most this often, so reading pages is not a write per request. */
const TOUCH_EVERY_MS = 60 * 1000;

/** 32 random bytes, base64url: 43 characters, cookie-safe. */
export function mintSessionToken(random: RandomSource = randomBytes): string {
  return random(32).toString('base64url');
}

/** When the session ends if nothing else happens. */
export function sessionExpiresAt(session: Pick<Session, 'createdAt' | 'lastSeenAt'>): Date {
  return new Date(Math.min(session.lastSeenAt.getTime() + SESSION_IDLE_MS, session.createdAt.getTime() + SESSION_ABSOLUTE_MS));
}

const live = (session: Session, now: Date) => sessionExpiresAt(session).getTime() > now.getTime();

/**
 * Deletes every session past its end, and every expired code, whoever's: found only when their
 * cookie or link came back, abandoned ones kept a browser's address and user agent for good.
 */
export async function forgetExpired(users: UserStore, now: Date): Promise<number> {
  const sessions = await users.deleteExpiredSessions(
    new Date(now.getTime() - SESSION_IDLE_MS),
    new Date(now.getTime() - SESSION_ABSOLUTE_MS),
  );
  return sessions + (await users.deleteExpiredCodes(now));
}

/** A new session; the token goes into the cookie and is never stored. */
export async function startSession(
  users: UserStore,
  userId: number,
  now: Date,
  client: { userAgent?: string | null; address?: string | null } = {},
  random?: RandomSource,
): Promise<{ token: string; session: Session }> {
  const token = mintSessionToken(random);
  const session = await users.createSession({
    userId,
    tokenHash: hashSecret(token),
    createdAt: now,
    userAgent: client.userAgent?.slice(0, 300) ?? null,
    address: client.address ?? null,
  });
  return { token, session };
}

/** The live session of a cookie's token and its user, touched; undefined when unknown or expired. */
export async function resumeSession(
  users: UserStore,
  token: string,
  now: Date,
): Promise<{ session: Session; user: User } | undefined> {
  const session = await users.findSession(hashSecret(token));
  if (!session) return undefined;
  if (!live(session, now)) {
    await users.deleteSession(session.userId, session.id);
    return undefined;
  }
  const user = await users.findUser(session.userId);
  if (!user) return undefined;
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await users.touchSession(session.id, now);
    return { session: { ...session, lastSeenAt: now }, user };
  }
  return { session, user };
}

/** A user's live sessions, oldest first, each with when it ends; expired ones are cleared. */
export async function listOwnSessions(
  users: UserStore,
  userId: number,
  now: Date,
): Promise<Array<Session & { expiresAt: Date }>> {
  const sessions = await users.listSessions(userId);
  for (const session of sessions.filter((s) => !live(s, now))) await users.deleteSession(userId, session.id);
  return sessions.filter((s) => live(s, now)).map((s) => ({ ...s, expiresAt: sessionExpiresAt(s) }));
}

/** Ends one of the user's own sessions (sign-out, or "end" in the sessions list). */
export function endSession(users: UserStore, userId: number, sessionId: number): Promise<boolean> {
  return users.deleteSession(userId, sessionId);
}

/** Ends every session of the user, but the one they are using when given (password change). */
export function endAllSessions(users: UserStore, userId: number, keepSessionId?: number): Promise<number> {
  return users.deleteSessions(userId, keepSessionId);
}
