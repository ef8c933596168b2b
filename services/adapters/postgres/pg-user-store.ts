// UserStore over SQL (PGlite standalone, Postgres distributed): people, their sessions, their
// one-time codes and invitations. It does not own the SqlClient.
import type { HumanRole } from '../../core/auth/capabilities.ts';
import { ConflictError } from '../../core/errors.ts';
import type {
  CodePurpose,
  Invitation,
  OneTimeCode,
  Session,
  Theme,
  User,
  UserCredentials,
  UserStore,
} from '../../core/ports/user-store.ts';
import { isUniqueViolation } from './pg-errors.ts';
import type { SqlClient, SqlExecutor } from './sql-client.ts';

interface UserRow {
  id: number;
  email: string;
  name: string;
  role: HumanRole;
  password_hash: string | null;
  time_zone: string | null;
  theme: Theme;
  created_at: Date;
}
const USER_COLUMNS = 'id, email, name, role, password_hash, time_zone, theme, created_at';
const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role,
  timeZone: r.time_zone,
  theme: r.theme,
  createdAt: r.created_at,
});

interface SessionRow {
  id: number;
  user_id: number;
  created_at: Date;
  last_seen_at: Date;
  user_agent: string | null;
  address: string | null;
}
const SESSION_COLUMNS = 'id, user_id, created_at, last_seen_at, user_agent, address';
const toSession = (r: SessionRow): Session => ({
  id: r.id,
  userId: r.user_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  userAgent: r.user_agent,
  address: r.address,
});

interface CodeRow {
  purpose: CodePurpose;
  user_id: number | null;
  created_at: Date;
  expires_at: Date | null;
}
const CODE_COLUMNS = 'purpose, user_id, created_at, expires_at';
const LIVE_CODE = 'purpose = $1 AND code_hash = $2 AND (expires_at IS NULL OR expires_at > $3)';
const toCode = (r: CodeRow): OneTimeCode => ({
  purpose: r.purpose,
  userId: r.user_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

interface InvitationRow {
  id: number;
  role: HumanRole;
  email: string | null;
  invited_by: number;
  created_at: Date;
  expires_at: Date;
}
const INVITATION_COLUMNS = 'id, role, email, invited_by, created_at, expires_at';
const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  role: r.role,
  email: r.email,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/**
 * Whether this user is the only owner. Locks every owner's row until the transaction ends: a
 * concurrent demotion or removal of an owner waits here, and then counts the owners it left
 * (under READ COMMITTED, a row locked FOR UPDATE is read again once the other commits, and
 * dropped if it is no longer an owner's).
 */
async function isOnlyOwner(tx: SqlExecutor, id: number): Promise<boolean> {
  const owners = await tx.query<{ id: number }>("SELECT id FROM users WHERE role = 'owner' ORDER BY id FOR UPDATE");
  return owners.rows.length === 1 && owners.rows[0]!.id === id;
}

const emailTaken = (email: string) =>
  new ConflictError(`a user with the email "${email}" already exists: errata listusers shows them`);

export class PgUserStore implements UserStore {
  constructor(private readonly db: SqlClient) {}

  async createUser(user: { email: string; name: string; role: HumanRole; passwordHash: string | null }): Promise<User> {
    try {
      return await this.db.transaction(async (tx) => {
        const inserted = await tx.query<UserRow>(
          `INSERT INTO users (email, name, role, password_hash) VALUES ($1, $2, $3, $4) RETURNING ${USER_COLUMNS}`,
          [user.email, user.name, user.role, user.passwordHash],
        );
        await tx.query("DELETE FROM one_time_codes WHERE purpose = 'setup'");
        return toUser(inserted.rows[0]!);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw emailTaken(user.email);
      throw error;
    }
  }

  async findUser(id: number): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
    return result.rows[0] && toUser(result.rows[0]);
  }

  async findUserByEmail(email: string): Promise<UserCredentials | undefined> {
    const result = await this.db.query<UserRow & { email_self_chosen: boolean }>(
      `SELECT ${USER_COLUMNS}, email_self_chosen FROM users WHERE lower(email) = lower($1)`,
      [email],
    );
    const row = result.rows[0];
    return row && { ...toUser(row), passwordHash: row.password_hash, emailSelfChosen: row.email_self_chosen };
  }

  async listUsers(): Promise<User[]> {
    return (await this.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY created_at, id`)).rows.map(toUser);
  }

  async countUsers(): Promise<number> {
    const result = await this.db.query<{ count: number }>('SELECT count(*)::int AS count FROM users');
    return result.rows[0]!.count;
  }

  async deleteUser(id: number): Promise<'deleted' | 'missing' | 'only-owner'> {
    return this.db.transaction(async (tx) => {
      if (await isOnlyOwner(tx, id)) return 'only-owner';
      await revokeTokensMadeBy(tx, id, 'member');
      return (await tx.query('DELETE FROM users WHERE id = $1', [id])).affectedRows > 0 ? 'deleted' : 'missing';
    });
  }

  async setRole(id: number, role: HumanRole): Promise<User | 'only-owner' | undefined> {
    return this.db.transaction(async (tx) => {
      if (role !== 'owner' && (await isOnlyOwner(tx, id))) return 'only-owner';
      const result = await tx.query<UserRow>(`UPDATE users SET role = $2 WHERE id = $1 RETURNING ${USER_COLUMNS}`, [id, role]);
      if (role !== 'owner') {
        await tx.query('DELETE FROM invitations WHERE invited_by = $1', [id]);
        await revokeTokensMadeBy(tx, id, role);
      }
      return result.rows[0] && toUser(result.rows[0]);
    });
  }

  async updateUser(id: number, change: Partial<Pick<User, 'name' | 'timeZone' | 'theme'>>): Promise<User | undefined> {
    const columns = { name: 'name', timeZone: 'time_zone', theme: 'theme' } as const;
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [key, column] of Object.entries(columns) as Array<[keyof typeof columns, string]>) {
      if (change[key] === undefined) continue;
      params.push(change[key]);
      sets.push(`${column} = $${params.length}`);
    }
    if (sets.length === 0) return this.findUser(id);
    const result = await this.db.query<UserRow>(
      `UPDATE users SET ${sets.join(', ')} WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      params,
    );
    return result.rows[0] && toUser(result.rows[0]);
  }

  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('UPDATE users SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
      await tx.query("DELETE FROM one_time_codes WHERE purpose = 'reset' AND user_id = $1", [id]);
    });
  }

  async createSession(session: {
    userId: number;
    tokenHash: string;
    createdAt: Date;
    userAgent: string | null;
    address: string | null;
  }): Promise<Session> {
    const result = await this.db.query<SessionRow>(
      `INSERT INTO user_sessions (user_id, token_hash, created_at, last_seen_at, user_agent, address)
       VALUES ($1, $2, $3, $3, $4, $5) RETURNING ${SESSION_COLUMNS}`,
      [session.userId, session.tokenHash, session.createdAt, session.userAgent, session.address],
    );
    return toSession(result.rows[0]!);
  }

  async findSession(tokenHash: string): Promise<Session | undefined> {
    const result = await this.db.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM user_sessions WHERE token_hash = $1`, [
      tokenHash,
    ]);
    return result.rows[0] && toSession(result.rows[0]);
  }

  async touchSession(id: number, at: Date): Promise<void> {
    // Never moves backwards: two requests racing leave the later time.
    await this.db.query('UPDATE user_sessions SET last_seen_at = greatest(last_seen_at, $2) WHERE id = $1', [id, at]);
  }

  async listSessions(userId: number): Promise<Session[]> {
    const result = await this.db.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM user_sessions WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    return result.rows.map(toSession);
  }

  async deleteExpiredSessions(idleBefore: Date, startedBefore: Date) {
    const result = await this.db.query('DELETE FROM user_sessions WHERE last_seen_at < $1 OR created_at < $2', [
      idleBefore,
      startedBefore,
    ]);
    return result.affectedRows;
  }

  async deleteExpiredCodes(now: Date) {
    return (await this.db.query('DELETE FROM one_time_codes WHERE expires_at <= $1', [now])).affectedRows;
  }

  async deleteSession(userId: number, id: number): Promise<boolean> {
    return (await this.db.query('DELETE FROM user_sessions WHERE user_id = $1 AND id = $2', [userId, id])).affectedRows > 0;
  }

  async deleteSessions(userId: number, exceptId?: number): Promise<number> {
    const result = await this.db.query('DELETE FROM user_sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2', [
      userId,
      exceptId ?? null,
    ]);
    return result.affectedRows;
  }

  async replaceCode(code: OneTimeCode & { codeHash: string }): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM one_time_codes WHERE purpose = $1 AND user_id IS NOT DISTINCT FROM $2', [
        code.purpose,
        code.userId,
      ]);
      await tx.query(
        'INSERT INTO one_time_codes (purpose, user_id, code_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [code.purpose, code.userId, code.codeHash, code.createdAt, code.expiresAt],
      );
    });
  }

  async findCode(purpose: CodePurpose, codeHash: string, now: Date): Promise<OneTimeCode | undefined> {
    const result = await this.db.query<CodeRow>(`SELECT ${CODE_COLUMNS} FROM one_time_codes WHERE ${LIVE_CODE}`, [
      purpose,
      codeHash,
      now,
    ]);
    return result.rows[0] && toCode(result.rows[0]);
  }

  async takeCode(purpose: CodePurpose, codeHash: string, now: Date): Promise<OneTimeCode | undefined> {
    const result = await this.db.query<CodeRow>(`DELETE FROM one_time_codes WHERE ${LIVE_CODE} RETURNING ${CODE_COLUMNS}`, [
      purpose,
      codeHash,
      now,
    ]);
    return result.rows[0] && toCode(result.rows[0]);
  }

  async findUserByIdentity(issuer: string, subject: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users WHERE id = (SELECT user_id FROM user_identities WHERE issuer = $1 AND subject = $2)`,
      [issuer, subject],
    );
    return result.rows[0] && toUser(result.rows[0]);
  }

  async identitySubject(userId: number, issuer: string): Promise<string | undefined> {
    const result = await this.db.query<{ subject: string }>(
      'SELECT subject FROM user_identities WHERE user_id = $1 AND issuer = $2',
      [userId, issuer],
    );
    return result.rows[0]?.subject;
  }

  async linkIdentity(userId: number, issuer: string, subject: string): Promise<boolean> {
    // Either uniqueness (the identity, or the person at this issuer) makes the insert a no-op;
    // reading back says whether this exact link is what holds.
    await this.db.query('INSERT INTO user_identities (issuer, subject, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      issuer,
      subject,
      userId,
    ]);
    const linked = await this.db.query<{ user_id: number }>(
      'SELECT user_id FROM user_identities WHERE issuer = $1 AND subject = $2',
      [issuer, subject],
    );
    return linked.rows[0]?.user_id === userId;
  }

  async lastSeenByUser(): Promise<Map<number, Date>> {
    const result = await this.db.query<{ user_id: number; last_seen_at: Date }>(
      'SELECT user_id, max(last_seen_at) AS last_seen_at FROM user_sessions GROUP BY user_id',
    );
    return new Map(result.rows.map((r) => [r.user_id, r.last_seen_at]));
  }

  async createInvitation(invitation: Omit<Invitation, 'id'> & { codeHash: string }): Promise<Invitation> {
    return this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM invitations WHERE expires_at <= $1', [invitation.createdAt]);
      const result = await tx.query<InvitationRow>(
        `INSERT INTO invitations (code_hash, role, email, invited_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${INVITATION_COLUMNS}`,
        [
          invitation.codeHash,
          invitation.role,
          invitation.email,
          invitation.invitedBy,
          invitation.createdAt,
          invitation.expiresAt,
        ],
      );
      return toInvitation(result.rows[0]!);
    });
  }

  async listInvitations(now: Date): Promise<Invitation[]> {
    const result = await this.db.query<InvitationRow>(
      `SELECT ${INVITATION_COLUMNS} FROM invitations WHERE expires_at > $1 ORDER BY created_at, id`,
      [now],
    );
    return result.rows.map(toInvitation);
  }

  async findInvitation(codeHash: string, now: Date): Promise<Invitation | undefined> {
    const result = await this.db.query<InvitationRow>(
      `SELECT ${INVITATION_COLUMNS} FROM invitations WHERE code_hash = $1 AND expires_at > $2`,
      [codeHash, now],
    );
    return result.rows[0] && toInvitation(result.rows[0]);
  }

  async deleteInvitation(id: number): Promise<boolean> {
    return (await this.db.query('DELETE FROM invitations WHERE id = $1', [id])).affectedRows > 0;
  }

  async acceptInvitation(
    codeHash: string,
    now: Date,
    user: { email: string; name: string; passwordHash: string },
  ): Promise<User | undefined> {
    try {
      return await this.db.transaction(async (tx) => {
        const taken = await tx.query<InvitationRow>(
          `DELETE FROM invitations WHERE code_hash = $1 AND expires_at > $2 RETURNING ${INVITATION_COLUMNS}`,
          [codeHash, now],
        );
        const invitation = taken.rows[0];
        if (!invitation) return undefined;
        // A failed insert (the email taken) rolls the delete back: the link still works.
        const inserted = await tx.query<UserRow>(
          `INSERT INTO users (email, name, role, password_hash, email_self_chosen) VALUES ($1, $2, $3, $4, $5)
           RETURNING ${USER_COLUMNS}`,
          [user.email, user.name, invitation.role, user.passwordHash, invitation.email === null],
        );
        await tx.query("DELETE FROM one_time_codes WHERE purpose = 'setup'");
        return toUser(inserted.rows[0]!);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw emailTaken(user.email);
      throw error;
    }
  }
}

/**
 * The tokens a person made on the dashboard that their role (`now`; a removed person's counts as
 * member) no longer lets them make, revoked: agent tokens once they are not an owner, upload
 * tokens once they are a member. They hold the plaintext, and removal looked complete while
 * their tokens still worked.
 */
async function revokeTokensMadeBy(tx: SqlExecutor, userId: number, now: Exclude<HumanRole, 'owner'>): Promise<void> {
  await tx.query('UPDATE agent_tokens SET revoked_at = now() WHERE created_by = $1 AND revoked_at IS NULL', [userId]);
  if (now === 'member') {
    await tx.query('UPDATE upload_tokens SET revoked_at = now() WHERE created_by = $1 AND revoked_at IS NULL', [userId]);
  }
}
