// A burst of concurrent sign-ins against a real server: the throttle counts guesses still being
// hashed, so a burst cannot pass the five-failure limit before the first guess fails, and the
// password hashes that may wait are capped, so a burst is refused at once with a retry time
// instead of queueing minutes of hashing ahead of everyone else's sign-in (a setup or reset
// link refused so stays usable).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormClient } from '../../support/dashboard-forms.ts';
import { runCli, startServer, stopAndRemove, type StandaloneServer } from '../../support/standalone-server.ts';

let server: StandaloneServer;
beforeAll(async () => {
  server = await startServer();
}, 60_000);
afterAll(() => stopAndRemove(server));

const PASSWORD = 'correct horse battery staple';

/** How many answers had each status, e.g. { 401: 5, 429: 7 }. */
const byStatus = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

describe('a burst of sign-ins from one address', () => {
  it('checks at most five guesses at one account, however many arrive at once', async () => {
    const client = new FormClient(server.url);
    const csrf = await client.token('/login');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => client.post('/login', { csrf, email: 'target@example.com', password: `guess ${i}` })),
    );
    expect(byStatus(answers.map((answer) => answer.status))).toEqual({ 401: 5, 429: 7 });
    // Refused while the five were still being hashed, or once they had failed: each says which.
    const said = answers
      .filter((answer) => answer.status === 429)
      .map((answer) => {
        expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
        return /Too many (failed sign-ins for|sign-ins for this email address are being checked)/.exec(answer.html)?.[0];
      });
    expect(said).toHaveLength(7);
    expect(said).not.toContain(undefined);
    expect(said).toContain('Too many sign-ins for this email address are being checked');
  });

  it('refuses at once, with a retry time, what the password hashing cannot take, keeping a reset link, and signs in once it has drained', async () => {
    for (const email of ['bob@example.com', 'carol@example.com']) {
      const created = await runCli(['createuser', '--email', email, '--password-stdin'], server.env, PASSWORD);
      expect(created.code, created.stderr).toBe(0);
    }
    const reset = await runCli(['resetpassword', '--email', 'carol@example.com'], server.env);
    const code = /\/reset\?code=([0-9A-Za-z]{43})/.exec(reset.stdout)?.[1];
    expect(code, reset.stdout).toBeDefined();
    const client = new FormClient(server.url);
    const csrf = await client.token('/login');
    const resetForm = {
      csrf: await client.token(`/reset?code=${code}`),
      code: code!,
      password: 'a new password',
      password2: 'a new password',
    };
    // Fifteen different accounts: the address allows 20 failures and has 5 from the test above.
    // As soon as one is refused (two are hashed and eight wait), a password reset.
    let firstRefusal: () => void;
    const refused = new Promise<void>((resolve) => (firstRefusal = resolve));
    const flood = Promise.all(
      Array.from({ length: 15 }, async (_, i) => {
        const answer = await client.post('/login', { csrf, email: `user${i}@example.com`, password: 'guess' });
        if (answer.status === 503) firstRefusal();
        return answer;
      }),
    );
    await Promise.race([refused, flood]);
    const refusedReset = await client.post('/reset', resetForm);
    const answers = await flood;
    // Refused as busy: the form again, saying so, and the reset link still works.
    expect(refusedReset.status).toBe(503);
    expect(refusedReset.headers.get('retry-after')).toBe('2');
    expect(refusedReset.html).toContain('Too many passwords are being checked at once: try again in 2 seconds.');
    expect(refusedReset.html).toContain('name="password2"');
    expect((await client.get(`/reset?code=${code}`)).status).toBe(200);
    expect((await client.post('/reset', resetForm)).status).toBe(303);
    const counts = byStatus(answers.map((answer) => answer.status));
    expect(Object.keys(counts).sort()).toEqual(['401', '503']);
    const busy = answers.find((answer) => answer.status === 503)!;
    expect(busy.headers.get('retry-after')).toBe('2');
    expect(busy.html).toContain('Too many passwords are being checked at once: try again in 2 seconds.');
    // The refused attempts were not checked, so they did not count against the address.
    expect((await client.post('/login', { csrf, email: 'bob@example.com', password: PASSWORD })).status).toBe(303);
  });
});
