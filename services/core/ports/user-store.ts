// UserStore port: the people who sign in to the dashboard, their sessions, their one-time
// codes (the setup link and password reset links) and the invitations that add people. Sessions and codes are stored by the SHA-256
// of their secret only. The mcp role (which serves the dashboard) and the admin commands use it.
// One SQL implementation (adapters/postgres/pg-user-store.ts).
import type { HumanRole } from '../auth/capabilities.ts';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

export interface User {
  id: number;
  /** As entered; unique without regard to case. */
  email: string;
  name: string;
  role: HumanRole;
  /** An IANA time zone, or null for the browser's. */
  timeZone: string | null;
  theme: Theme;
  createdAt: Date;
}

/** A user with their password hash, only for sign-in; never leaves the server. */
export interface UserCredentials extends User {
  /** PHC string (core/auth/password-hash.ts); null until a password is set. */
  passwordHash: string | null;
  /** They typed this email joining by an invitation that named none: nobody vouched for it. */
  emailSelfChosen: boolean;
}

export interface Session {
  id: number;
  userId: number;
  createdAt: Date;
  lastSeenAt: Date;
  /** What the browser said it was and where it came from, so a person recognises their sessions. */
  userAgent: string | null;
  address: string | null;
}

export type CodePurpose = 'setup' | 'reset';

export interface OneTimeCode {
  purpose: CodePurpose;
  /** Null for the setup code, which creates the first user. */
  userId: number | null;
  createdAt: Date;
  /** Null: valid until used (setup codes issued before they expired after a day). */
  expiresAt: Date | null;
}

/** A pending invitation: whoever opens its link first becomes a person with its role. */
export interface Invitation {
  id: number;
  role: HumanRole;
  /** Who it was meant for, prefilled in its form; null when the owner named nobody. */
  email: string | null;
  /** The owner who made it; the invitation ends with them. */
  invitedBy: number;
  createdAt: Date;
  expiresAt: Date;
}

export interface UserStore {
  /** ConflictError when a user has this email in any case. Ends every setup code: the first user is made. */
  createUser(user: { email: string; name: string; role: HumanRole; passwordHash: string | null }): Promise<User>;
  findUser(id: number): Promise<User | undefined>;
  /** Case-insensitive. */
  findUserByEmail(email: string): Promise<UserCredentials | undefined>;
  listUsers(): Promise<User[]>;
  countUsers(): Promise<number>;
  /**
   * Also ends the user's sessions and codes. Refuses ('only-owner') to delete the only owner, so
   * someone can always manage people: the count and the delete are one transaction that locks
   * the owners' rows, so two owners removing each other at once cannot leave none.
   */
  deleteUser(id: number): Promise<'deleted' | 'missing' | 'only-owner'>;
  /**
   * Refuses ('only-owner') to demote the only owner, as deleteUser refuses, in one transaction.
   * Undefined when no such user. An owner made anything else loses the invitations they made:
   * only owners invite, and a demoted owner's link would make them a new owner account.
   */
  setRole(id: number, role: HumanRole): Promise<User | 'only-owner' | undefined>;
  updateUser(id: number, change: Partial<Pick<User, 'name' | 'timeZone' | 'theme'>>): Promise<User | undefined>;
  /**
   * A new password (or the same one hashed anew) ends the person's reset links: one given out
   * before (pasted in a chat) set another password after they had changed theirs.
   */
  setPasswordHash(id: number, passwordHash: string): Promise<void>;
  /** The person a single sign-on identity (issuer and subject) is linked to. */
  findUserByIdentity(issuer: string, subject: string): Promise<User | undefined>;
  /** The subject the person is linked to at this issuer, if any. */
  identitySubject(userId: number, issuer: string): Promise<string | undefined>;
  /**
   * Links the identity to the person (again is a no-op). False when either side is already
   * linked elsewhere: the identity to another person, or the person to another subject there.
   */
  linkIdentity(userId: number, issuer: string, subject: string): Promise<boolean>;

  createSession(session: {
    userId: number;
    tokenHash: string;
    createdAt: Date;
    userAgent: string | null;
    address: string | null;
  }): Promise<Session>;
  findSession(tokenHash: string): Promise<Session | undefined>;
  touchSession(id: number, at: Date): Promise<void>;
  /** Oldest first. */
  listSessions(userId: number): Promise<Session[]>;
  /** False when the user has no such session (another user's is never ended). */
  deleteSession(userId: number, id: number): Promise<boolean>;
  /** Every session of the user but `exceptId`; how many ended. */
  deleteSessions(userId: number, exceptId?: number): Promise<number>;
  /** Sessions last seen before `idleBefore` or started before `startedBefore`, whoever's; how many. */
  deleteExpiredSessions(idleBefore: Date, startedBefore: Date): Promise<number>;
  /** Codes (setup, reset) that expired by `now`; how many. */
  deleteExpiredCodes(now: Date): Promise<number>;

  /** Stores a code, replacing every other code of the same purpose and user. */
  replaceCode(code: OneTimeCode & { codeHash: string }): Promise<void>;
  /** The code if it is live at `now`, without using it up. */
  findCode(purpose: CodePurpose, codeHash: string, now: Date): Promise<OneTimeCode | undefined>;
  /** Uses the code up: of two concurrent takes, one gets it. Undefined when absent or expired. */
  takeCode(purpose: CodePurpose, codeHash: string, now: Date): Promise<OneTimeCode | undefined>;
  /** When each person's sessions last saw a request, by user id; people without a session are absent. */
  lastSeenByUser(): Promise<Map<number, Date>>;
  /** Stores an invitation by its code's hash (and forgets those expired by `createdAt`). */
  createInvitation(invitation: Omit<Invitation, 'id'> & { codeHash: string }): Promise<Invitation>;
  /** Invitations live at `now`, oldest first. */
  listInvitations(now: Date): Promise<Invitation[]>;
  /** The invitation if its code is live at `now`, without using it up. */
  findInvitation(codeHash: string, now: Date): Promise<Invitation | undefined>;
  /** Revokes an invitation; false when there is none with this id. */
  deleteInvitation(id: number): Promise<boolean>;
  /**
   * Uses the invitation up and creates the person with its role, in one transaction: of two
   * concurrent acceptances one gets it. Undefined when the code is not live; ConflictError when
   * the email is taken, and the invitation is then kept.
   */
  acceptInvitation(
    codeHash: string,
    now: Date,
    user: { email: string; name: string; passwordHash: string },
  ): Promise<User | undefined>;
}
