// The people commands (`errata createuser | listusers | resetpassword | deleteuser`) against the
// real binary, with and without a running server, and the one-time setup link `errata start`
// prints while nobody can sign in. Passwords and hashes never appear in any output.
import { describe, expect, it } from 'vitest';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { createSqlStores } from '../../services/adapters/postgres/sql-stores.ts';
import { createPasswordHasher } from '../../services/core/auth/password-hash.ts';
import { checkCode } from '../../services/core/people/one-time-codes.ts';
import type { CodePurpose } from '../../services/core/ports/user-store.ts';
import { embeddedDatabaseDir } from '../../services/runtime/embedded/database-dir.ts';
import { tableText } from '../support/embedded-admin.ts';
import { runAtTerminal } from '../support/pseudo-terminal.ts';
import { BIN, eventually, runCli, runCliJson, startServer } from '../support/standalone-server.ts';
import { cliEnvironments } from '../support/cli-env.ts';

const { dataDir, cliEnv } = cliEnvironments();

/** Whether a link's code is live in a stopped instance's database, asked through the real store. */
async function codeIsLive(dir: string, purpose: CodePurpose, code: string): Promise<boolean> {
  const db = await PGliteClient.open(embeddedDatabaseDir(dir));
  try {
    return (await checkCode(createSqlStores(db).users, purpose, code, new Date())) !== undefined;
  } finally {
    await db.close();
  }
}

const PASSWORD = 'correct horse battery staple';

describe('errata createuser, listusers, resetpassword, deleteuser', () => {
  it('manages people without a server, never printing or storing a password', async () => {
    const env = await cliEnv({ initialized: true });
    const created = await runCli(
      ['createuser', '--email', 'Ada@Example.com', '--name', 'Ada', '--owner', '--password-stdin'],
      env,
      `${PASSWORD}\n`,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(`Created owner "Ada@Example.com" (Ada).\nThey sign in at ${env.ERRATA_BASE_URL}/login\n`);
    const bob = await runCli(
      ['--json', 'createuser', '--email', 'bob@example.com', '--role', 'member', '--password-stdin'],
      env,
      'bob-password',
    );
    expect(JSON.parse(bob.stdout)).toMatchObject({ user: { email: 'bob@example.com', name: 'bob', role: 'member' } });

    const listed = await runCli(['listusers'], env);
    expect(listed.stdout).toMatch(
      /^Ada@Example\.com {2}role=owner {2}name=Ada {2}created=\S+\nbob@example\.com {2}role=member {2}name=bob {2}created=\S+\n$/,
    );
    const listedJson = await runCliJson<{ users: Array<Record<string, unknown>> }>(['listusers'], env);
    expect(Object.keys(listedJson.users[0]!).sort()).toEqual(['createdAt', 'email', 'id', 'name', 'role']);
    const rows = await tableText(env.ERRATA_DATA_DIR!, 'SELECT * FROM users');
    expect(rows).toContain('$scrypt$ln=17,r=8,p=1$');
    expect(rows).not.toContain(PASSWORD);
    expect(rows).not.toContain('bob-password');

    const reset = await runCli(['resetpassword', '--email', 'BOB@example.com'], env);
    expect(reset.code).toBe(0);
    const code = new RegExp(`  ${env.ERRATA_BASE_URL}/reset\\?code=([0-9A-Za-z]{43})\\n`).exec(reset.stdout)?.[1];
    expect(code, reset.stdout).toBeDefined();
    expect(await codeIsLive(env.ERRATA_DATA_DIR!, 'reset', code!)).toBe(true);
    expect(await tableText(env.ERRATA_DATA_DIR!, 'SELECT * FROM one_time_codes')).not.toContain(code!);
    await runCli(['resetpassword', '--email', 'bob@example.com'], env);
    expect(await codeIsLive(env.ERRATA_DATA_DIR!, 'reset', code!)).toBe(false);

    expect((await runCli(['deleteuser', '--email', 'bob@example.com'], env)).stdout).toBe(
      'Deleted member "bob@example.com"; their sessions have ended.\n',
    );
    for (const args of [['listusers'], ['--json', 'listusers']]) {
      const out = await runCli(args, env);
      expect(out.stdout).not.toContain('bob@example.com');
      expect(out.stdout).not.toContain('$scrypt$');
    }
  });

  it('asks once, without echoing it, for a --password-stdin password typed at a terminal', async () => {
    const env = await cliEnv({ initialized: true });
    const terminal = await runAtTerminal(
      [process.execPath, BIN, 'createuser', '--email', 'tty@example.com', '--role', 'member', '--password-stdin'],
      env,
      [{ after: 'Password:', type: `${PASSWORD}\r` }],
    );
    expect(terminal.shown).toBe(
      `Password: \r\nCreated member "tty@example.com" (tty).\r\nThey sign in at ${env.ERRATA_BASE_URL}/login\r\n`,
    );
    expect(terminal.code).toBe(0);
    const db = await PGliteClient.open(embeddedDatabaseDir(env.ERRATA_DATA_DIR!));
    try {
      const stored = await createSqlStores(db).users.findUserByEmail('tty@example.com');
      await expect(createPasswordHasher().verify(PASSWORD, stored?.passwordHash)).resolves.toBe(true);
    } finally {
      await db.close();
    }
  });

  it('refuses bad input, saying how to fix it', async () => {
    const env = await cliEnv({ initialized: true });
    const noTerminal = await runCli(['createuser', '--email', 'a@example.com', '--owner'], env);
    expect(noTerminal.code).toBe(1);
    expect(noTerminal.stderr).toMatch(/no terminal to ask for the password on: pipe it in with --password-stdin/);
    const short = await runCli(['createuser', '--email', 'a@example.com', '--password-stdin'], env, 'short');
    expect(short.stderr).toMatch(/the password is too short: use at least 8 characters/);
    expect(short.stderr).not.toContain('short\n');
    const notEmail = await runCli(['createuser', '--email', 'nobody', '--password-stdin'], env, PASSWORD);
    expect(notEmail.stderr).toMatch(/"nobody" is not an email address: give one like ada@example.com/);
    // Told before the password is asked for (twice, at a terminal): it was told only after.
    const beforePassword = await runCli(['createuser', '--email', 'nobody', '--owner'], env);
    expect(beforePassword.stderr).toMatch(/"nobody" is not an email address/);
    const role = await runCli(['createuser', '--email', 'a@example.com', '--role', 'triage', '--password-stdin'], env, PASSWORD);
    expect(role.stderr).toMatch(/Allowed choices are owner, admin, member/);
    const disagree = await runCli(
      ['createuser', '--email', 'a@example.com', '--owner', '--role', 'member', '--password-stdin'],
      env,
      PASSWORD,
    );
    expect(disagree.stderr).toMatch(/--owner and --role member disagree: give one of them/);

    expect((await runCli(['createuser', '--email', 'a@example.com', '--owner', '--password-stdin'], env, PASSWORD)).code).toBe(0);
    const again = await runCli(['createuser', '--email', 'A@EXAMPLE.COM', '--password-stdin'], env, PASSWORD);
    expect(again.stderr).toMatch(/a user with the email "A@EXAMPLE.COM" already exists: errata listusers shows them/);
    expect((await runCli(['deleteuser', '--email', 'a@example.com'], env)).stderr).toMatch(
      /"a@example.com" is the only owner: make another user an owner first/,
    );
    expect((await runCli(['resetpassword', '--email', 'x@example.com'], env)).stderr).toMatch(
      /no user with the email "x@example.com": errata listusers shows them/,
    );
    for (const result of [short, notEmail, again]) expect(result.stderr + result.stdout).not.toContain(PASSWORD);
  });
});

describe('the setup link of errata start', () => {
  it('prints a one-time setup link while nobody exists, a new one at each start, none once a user exists; the CLI works through the server', async () => {
    const dir = await dataDir({ initialized: true });
    const linkIn = async (output: () => string) =>
      (await eventually(async () => /\/setup\?code=([0-9A-Za-z]{43})\n/.exec(output())?.[1], 'the setup link')) as string;

    const first = await startServer({ dataDir: dir });
    const firstCode = await linkIn(first.output);
    expect(first.output()).toContain(`  ${first.url}/setup?code=${firstCode}\n`);
    expect(first.output()).toMatch(/errata createuser --email you@example.com --owner/);
    expect(await first.stop()).toBe(0);
    expect(await codeIsLive(dir, 'setup', firstCode)).toBe(true);
    expect(await tableText(dir, 'SELECT * FROM one_time_codes')).not.toContain(firstCode);

    const second = await startServer({ dataDir: dir });
    const secondCode = await linkIn(second.output);
    expect(secondCode).not.toBe(firstCode);
    // With the server running, the commands go through its admin socket.
    const created = await runCli(
      ['createuser', '--email', 'owner@example.com', '--owner', '--password-stdin'],
      second.env,
      PASSWORD,
    );
    expect(created.stdout).toMatch(/^Created owner "owner@example.com"/);
    expect((await runCliJson<{ users: Array<{ email: string }> }>(['listusers'], second.env)).users.map((u) => u.email)).toEqual([
      'owner@example.com',
    ]);
    const reset = await runCli(['resetpassword', '--email', 'owner@example.com'], second.env);
    const resetCode = /\/reset\?code=([0-9A-Za-z]{43})\n/.exec(reset.stdout)?.[1];
    expect(await second.stop()).toBe(0);
    expect(second.output()).not.toContain(PASSWORD);
    expect(await codeIsLive(dir, 'setup', firstCode)).toBe(false);
    // The first user ends the setup link.
    expect(await codeIsLive(dir, 'setup', secondCode)).toBe(false);
    expect(await codeIsLive(dir, 'reset', resetCode!)).toBe(true);

    // Everything a stopped server printed is in its output: no setup link among it.
    const third = await startServer({ dataDir: dir });
    expect(await third.stop()).toBe(0);
    expect(third.output()).toMatch(/is running at/);
    expect(third.output()).not.toMatch(/setup\?code=|Nobody can sign in/);
  });
});
