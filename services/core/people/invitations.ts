// Invitations: how an owner adds a person from the dashboard without a mail server. The owner
// gets a one-time link, `<base URL>/invitations/<code>`, to pass on however they like; whoever
// opens it first chooses a name, email (the one the owner named, if any) and password and becomes
// a person with the invited role.
// Only the code's SHA-256 is stored; the link works once and for INVITATION_TTL_MS.
import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from '../auth/password-hash.ts';
import { hashSecret, randomBase62, type RandomSource } from '../auth/secrets.ts';
import { ConflictError, NotFoundError, UserInputError } from '../errors.ts';
import type { Invitation, User, UserStore } from '../ports/user-store.ts';
import { checkEmail, checkName, checkPassword, checkRole } from './users.ts';

/** A week, as Sentry's invitations last: long enough to reach someone on holiday, short enough to forget. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The link an owner passes on. The code is a path segment, so it never reaches a log (routes are logged as templates). */
export function invitationLink(baseUrl: string, code: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/invitations/${code}`;
}

const emailTaken = (email: string) =>
  new ConflictError(`someone already signs in with "${email}": sign in with it, or choose another email`);

/** A new invitation and its code, which exists only in this answer. */
export async function invite(
  users: UserStore,
  input: { role: string; email: string; invitedBy: number },
  now: Date,
  random: RandomSource = randomBytes,
): Promise<{ code: string; invitation: Invitation }> {
  const role = checkRole(input.role);
  const email = input.email.trim() ? checkEmail(input.email) : null;
  if (email && (await users.findUserByEmail(email))) {
    throw new ConflictError(`"${email}" already signs in here: change their role in the list of people instead`);
  }
  // 43 base62 characters, about 256 bits, like the setup and reset codes.
  const code = randomBase62(43, random);
  const invitation = await users.createInvitation({
    codeHash: hashSecret(code),
    role,
    email,
    invitedBy: input.invitedBy,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  });
  return { code, invitation };
}

/** The invitation a link's code names if it is live, without using it (to show its form). */
export function checkInvitation(users: UserStore, code: string, now: Date): Promise<Invitation | undefined> {
  return users.findInvitation(hashSecret(code), now);
}

/**
 * Creates the invited person with the invitation's role, using the link up. Undefined when the
 * link no longer works; UserInputError or ConflictError (the link still works) when the form
 * needs another try.
 */
export async function acceptInvitation(
  deps: { users: UserStore; passwords: PasswordHasher },
  code: string,
  input: { name: string; email: string; password: string },
  now: Date,
): Promise<User | undefined> {
  const email = checkEmail(input.email);
  checkPassword(input.password);
  const name = checkName(input.name) || email.split('@')[0]!;
  const codeHash = hashSecret(code);
  const invitation = await deps.users.findInvitation(codeHash, now);
  if (!invitation) return undefined;
  // The owner vouched for the email they named; another would be one nobody vouched for.
  if (invitation.email !== null && email.toLowerCase() !== invitation.email.toLowerCase()) {
    throw new UserInputError(
      `this invitation is for ${invitation.email}: join with that email, or ask an owner for an invitation that names yours`,
    );
  }
  if (await deps.users.findUserByEmail(email)) throw emailTaken(email);
  const passwordHash = await deps.passwords.hash(input.password);
  try {
    return await deps.users.acceptInvitation(codeHash, now, { email, name, passwordHash });
  } catch (error) {
    // Someone took the email between the check and the insert.
    if (error instanceof ConflictError) throw emailTaken(email);
    throw error;
  }
}

export async function revokeInvitation(users: UserStore, id: number): Promise<void> {
  if (!(await users.deleteInvitation(id))) {
    throw new NotFoundError('no such pending invitation: it was used, revoked or has expired; the Members page lists those left');
  }
}
