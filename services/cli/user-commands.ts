// The people commands: `errata createuser | listusers | resetpassword | deleteuser`, for the
// people who sign in to the dashboard. The first owner comes from `createuser --owner` or from
// the setup link `errata start` prints while nobody exists. No output carries a password or hash.
import { Option, type Command } from 'commander';
import { HUMAN_ROLES } from '../core/auth/capabilities.ts';
import { UserInputError } from '../core/errors.ts';
import { checkEmail } from '../core/people/users.ts';
import type { CliIo } from './cli-io.ts';
import { readPassword } from './password-input.ts';

interface UserJson {
  email: string;
  name: string;
  role: string;
  createdAt: string;
}

export function registerUserCommands(program: Command, io: CliIo): void {
  program
    .command('createuser')
    .description('create a person who signs in to the dashboard; the password is asked for (or read with --password-stdin)')
    .requiredOption('--email <email>', 'their email, which they sign in with')
    .option('--name <name>', 'the name shown (default: the part of the email before @)')
    .option('--owner', 'make them an owner (same as --role owner)')
    .addOption(new Option('--role <role>', 'what they may do').choices(HUMAN_ROLES))
    .option('--password-stdin', 'read the password from standard input instead of a prompt')
    .action(async (options: { email: string; name?: string; owner?: boolean; role?: string; passwordStdin?: boolean }) => {
      if (options.owner && options.role && options.role !== 'owner') {
        throw new UserInputError(`--owner and --role ${options.role} disagree: give one of them`);
      }
      const role = options.owner ? 'owner' : (options.role ?? 'member');
      // Checked before the password is asked for, twice: a typo in the email was told only after.
      checkEmail(options.email);
      const password = await readPassword({ stdin: Boolean(options.passwordStdin) });
      const result = (await io.admin('createuser', { email: options.email, name: options.name, role, password })) as {
        user: UserJson;
        baseUrl: string;
      };
      if (io.json()) return io.out(JSON.stringify(result));
      io.out(`Created ${result.user.role} "${result.user.email}" (${result.user.name}).`);
      io.out(`They sign in at ${result.baseUrl}/login`);
    });

  program
    .command('listusers')
    .description('list the people who sign in to the dashboard')
    .action(async () => {
      const result = (await io.admin('listusers', {})) as { users: UserJson[] };
      if (io.json()) return io.out(JSON.stringify(result));
      if (result.users.length === 0) return io.out('No users yet: errata createuser --email you@example.com --owner');
      for (const user of result.users) {
        io.out(`${user.email}  role=${user.role}  name=${user.name}  created=${user.createdAt}`);
      }
    });

  program
    .command('resetpassword')
    .description("print a one-time link that sets a person's password (valid for 24 hours)")
    .requiredOption('--email <email>', 'whose password')
    .action(async (options: { email: string }) => {
      const result = (await io.admin('resetpassword', options)) as { user: UserJson; link: string; expiresAt: string };
      if (io.json()) return io.out(JSON.stringify(result));
      io.out(`Send this link to ${result.user.email}; it sets a new password once, until ${result.expiresAt}:`);
      io.out('');
      io.out(`  ${result.link}`);
      io.out('');
      io.out('Any earlier reset link for them stops working.');
    });

  program
    .command('deleteuser')
    .description('delete a person and end their sessions (the last owner cannot be deleted)')
    .requiredOption('--email <email>', 'whom')
    .action(async (options: { email: string }) => {
      const result = (await io.admin('deleteuser', options)) as { user: UserJson };
      io.out(
        io.json() ? JSON.stringify(result) : `Deleted ${result.user.role} "${result.user.email}"; their sessions have ended.`,
      );
    });
}
