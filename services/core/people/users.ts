// Managing people: the rules `errata createuser | listusers | resetpassword | deleteuser` and the
// dashboard's people pages share. Validation happens here, once; passwords arrive in plain text
// and leave only as a hash (core/auth/password-hash.ts).
import { isHumanRole, type HumanRole } from '../auth/capabilities.ts';
import { MAX_PASSWORD_LENGTH, type PasswordHasher } from '../auth/password-hash.ts';
import { ConflictError, NotFoundError, UserInputError } from '../errors.ts';
import { THEMES, type Theme, type User, type UserCredentials, type UserStore } from '../ports/user-store.ts';
import { endAllSessions } from './sessions.ts';

/** NIST SP 800-63B: at least 8 characters, no composition rules. */
export const MIN_PASSWORD_LENGTH = 8;
const MAX_EMAIL_LENGTH = 254;
const MAX_NAME_LENGTH = 100;

interface PeopleDeps {
  users: UserStore;
  passwords: PasswordHasher;
}

/** One @, something on each side, no spaces: the rest is the mail server's business. */
export function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (trimmed.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(trimmed)) {
    throw new UserInputError(`"${email.slice(0, 100)}" is not an email address: give one like ada@example.com`);
  }
  return trimmed;
}

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new UserInputError(`the password is too short: use at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new UserInputError(`the password is too long: use at most ${MAX_PASSWORD_LENGTH} characters`);
  }
}

export function checkRole(role: string): HumanRole {
  if (!isHumanRole(role)) throw new UserInputError(`unknown role "${role}": use owner, admin or member`);
  return role;
}

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length > MAX_NAME_LENGTH)
    throw new UserInputError(`the name is too long: use at most ${MAX_NAME_LENGTH} characters`);
  return trimmed;
}

export async function createUser(
  deps: PeopleDeps,
  input: { email: string; name?: string; role: string; password: string },
): Promise<User> {
  const email = checkEmail(input.email);
  const role = checkRole(input.role);
  checkPassword(input.password);
  const name = checkName(input.name ?? '') || email.split('@')[0]!;
  if (await deps.users.findUserByEmail(email)) {
    throw new ConflictError(`a user with the email "${email}" already exists: errata listusers shows them`);
  }
  return deps.users.createUser({ email, name, role, passwordHash: await deps.passwords.hash(input.password) });
}

export async function findUserByEmailOrThrow(users: UserStore, email: string): Promise<User> {
  const user = await users.findUserByEmail(email.trim());
  if (!user) throw new NotFoundError(`no user with the email "${email.slice(0, 100)}": errata listusers shows them`);
  const { passwordHash: _hidden, ...rest } = user;
  return rest;
}

/** Deletes a user and their sessions; the last owner stays, so someone can always manage people. */
export async function deleteUser(users: UserStore, email: string): Promise<User> {
  const user = await findUserByEmailOrThrow(users, email);
  const outcome = await users.deleteUser(user.id);
  if (outcome === 'only-owner') throw onlyOwner(user);
  if (outcome === 'missing') throw new ConflictError(`"${user.email}" was deleted meanwhile`);
  return user;
}

/** The store refuses to remove or demote the only owner: someone must always be able to manage people. */
export function onlyOwner(user: User): ConflictError {
  return new ConflictError(`"${user.email}" is the only owner: make another user an owner first`);
}

/** Sets a new password and ends every other session, as a reset or change should. */
export async function setPassword(deps: PeopleDeps, userId: number, password: string, keepSessionId?: number): Promise<void> {
  checkPassword(password);
  await deps.users.setPasswordHash(userId, await deps.passwords.hash(password));
  await endAllSessions(deps.users, userId, keepSessionId);
}

/** A person's own settings: the name others see, the time zone times are shown in (empty: the browser's), the theme. */
export async function updateProfile(
  users: UserStore,
  userId: number,
  input: { name: string; timeZone: string; theme: string },
): Promise<User> {
  const name = checkName(input.name);
  if (!name) throw new UserInputError('the name is empty: give the name others should see');
  const timeZone = input.timeZone.trim() || null;
  if (timeZone !== null && !isTimeZone(timeZone)) {
    throw new UserInputError(`"${timeZone.slice(0, 60)}" is not a time zone: choose one from the list, such as Europe/Berlin`);
  }
  if (!(THEMES as readonly string[]).includes(input.theme)) {
    throw new UserInputError(`unknown theme "${input.theme.slice(0, 30)}": use ${THEMES.join(', ')}`);
  }
  const user = await users.updateUser(userId, { name, timeZone, theme: input.theme as Theme });
  if (!user) throw new NotFoundError('this account no longer exists');
  return user;
}

/** The IANA zones this runtime knows, for the account page's list. */
export function timeZones(): string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A wrong current password given for a new one: counted as a failed sign-in (the dashboard's throttle). */
export class WrongCurrentPasswordError extends UserInputError {
  constructor() {
    super('the current password is not right: type the password you signed in with');
  }
}

/** A signed-in person's new password, given the current one; every other session ends. */
/** The user with their password hash (the store finds that by email only). */
export async function credentialsOf(users: UserStore, userId: number): Promise<UserCredentials | undefined> {
  const user = await users.findUser(userId);
  return user && users.findUserByEmail(user.email);
}

export async function changePassword(
  deps: PeopleDeps,
  userId: number,
  input: { current: string; password: string },
  keepSessionId: number,
): Promise<void> {
  const credentials = await credentialsOf(deps.users, userId);
  if (!credentials || !(await deps.passwords.verify(input.current, credentials.passwordHash))) {
    throw new WrongCurrentPasswordError();
  }
  await setPassword(deps, userId, input.password, keepSessionId);
}

/**
 * Someone single sign-on lets in for the first time (ERRATA_OIDC_CREATE_USERS): no password, since
 * they sign in at the provider; a password reset link gives them one if they ever need it.
 */
export async function createSignedOnUser(
  users: UserStore,
  input: { email: string; name: string; role: HumanRole },
): Promise<User> {
  const email = checkEmail(input.email);
  const name = checkName(input.name.slice(0, MAX_NAME_LENGTH)) || email.split('@')[0]!;
  return users.createUser({ email, name, role: input.role, passwordHash: null });
}
