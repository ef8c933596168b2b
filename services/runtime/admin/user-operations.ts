// The people admin operations behind `errata createuser | listusers | resetpassword |
// deleteuser`, on the same rules as the dashboard (core/people/users.ts). A password arrives
// here in the input and leaves only as a hash: no output, log line or error carries it.
import { z } from 'zod';
import { codeLink, issueResetCode, RESET_CODE_TTL_MS } from '../../core/people/one-time-codes.ts';
import { createUser, deleteUser, findUserByEmailOrThrow } from '../../core/people/users.ts';
import type { User } from '../../core/ports/user-store.ts';
import { passwordHasher } from '../passwords.ts';
import type { AdminContext } from './operations.ts';

const email = z.string().min(1).max(300);

const userJson = (user: User) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  createdAt: user.createdAt.toISOString(),
});

export const USER_OPERATIONS = {
  createuser: {
    input: z.object({ email, name: z.string().max(300).optional(), role: z.string().default('member'), password: z.string() }),
    async run(ctx: AdminContext, input: { email: string; name?: string; role: string; password: string }) {
      return {
        user: userJson(await createUser({ users: ctx.users, passwords: passwordHasher }, input)),
        baseUrl: ctx.baseUrl,
      };
    },
  },
  listusers: {
    input: z.object({}),
    async run(ctx: AdminContext) {
      return { users: (await ctx.users.listUsers()).map(userJson) };
    },
  },
  resetpassword: {
    input: z.object({ email }),
    async run(ctx: AdminContext, input: { email: string }) {
      const user = await findUserByEmailOrThrow(ctx.users, input.email);
      const now = new Date();
      const code = await issueResetCode(ctx.users, user.id, now);
      return {
        user: userJson(user),
        link: codeLink(ctx.baseUrl, 'reset', code),
        expiresAt: new Date(now.getTime() + RESET_CODE_TTL_MS).toISOString(),
      };
    },
  },
  deleteuser: {
    input: z.object({ email }),
    async run(ctx: AdminContext, input: { email: string }) {
      return { user: userJson(await deleteUser(ctx.users, input.email)) };
    },
  },
} as const;
