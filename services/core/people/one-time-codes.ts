// One-time links: the setup link `errata start` prints while nobody can sign in, and password
// reset links (`errata resetpassword`). The code is random, only its SHA-256 stored, used up on
// redemption, and a new code replaces the previous one of the same purpose and user.
import { randomBytes } from 'node:crypto';
import { hashSecret, randomBase62, type RandomSource } from '../auth/secrets.ts';
import type { CodePurpose, OneTimeCode, UserStore } from '../ports/user-store.ts';

/** A reset link lasts a day, as Sentry's does. */
export const RESET_CODE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * So does the setup link (as GitLab's first root password does): it went on working until used,
 * so a start's output kept in a log (journald, a container's) made anyone who could read it the
 * owner for as long as nobody had signed up. Each start prints a new one.
 */
export const SETUP_CODE_TTL_MS = 24 * 60 * 60 * 1000;

const TTL_MS: Record<CodePurpose, number> = { setup: SETUP_CODE_TTL_MS, reset: RESET_CODE_TTL_MS };

const PATHS: Record<CodePurpose, string> = { setup: '/setup', reset: '/reset' };

/** The link a person opens: `<base URL>/setup?code=...` or `/reset?code=...`. */
export function codeLink(baseUrl: string, purpose: CodePurpose, code: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${PATHS[purpose]}?code=${code}`;
}

async function issue(
  users: UserStore,
  purpose: CodePurpose,
  userId: number | null,
  now: Date,
  random: RandomSource,
): Promise<string> {
  // 43 base62 characters, about 256 bits: a URL-safe single word.
  const code = randomBase62(43, random);
  await users.replaceCode({
    purpose,
    userId,
    codeHash: hashSecret(code),
    createdAt: now,
    expiresAt: new Date(now.getTime() + TTL_MS[purpose]),
  });
  return code;
}

/** A new setup code; the one printed before stops working. */
export function issueSetupCode(users: UserStore, now: Date, random: RandomSource = randomBytes): Promise<string> {
  return issue(users, 'setup', null, now, random);
}

/** A new reset code for the user; an earlier one stops working. */
export function issueResetCode(users: UserStore, userId: number, now: Date, random: RandomSource = randomBytes): Promise<string> {
  return issue(users, 'reset', userId, now, random);
}

/** Whether a code from a link is live, without using it (to show the form it leads to). */
export function checkCode(users: UserStore, purpose: CodePurpose, code: string, now: Date): Promise<OneTimeCode | undefined> {
  return users.findCode(purpose, hashSecret(code), now);
}

/** Uses the code up; undefined when it is unknown, used or expired. */
export function redeemCode(users: UserStore, purpose: CodePurpose, code: string, now: Date): Promise<OneTimeCode | undefined> {
  return users.takeCode(purpose, hashSecret(code), now);
}
