// A burst of concurrent sign-ins against a real server: the throttle counts guesses still being
// hashed, so a burst cannot pass the five-failure limit before the first guess fails, and the
// password hashes that may wait are capped, so a burst is refused at once with a retry time
// instead of queueing minutes of hashing ahead of everyone else's sign-in.
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
    const throttled = answers.find((answer) => answer.status === 429)!;
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(throttled.html).toContain('Too many failed sign-ins for this email address.');
  });

  it('refuses at once, with a retry time, what the password hashing cannot take, and signs in once it has drained', async () => {
    const created = await runCli(['createuser', '--email', 'bob@example.com', '--password-stdin'], server.env, PASSWORD);
    expect(created.code, created.stderr).toBe(0);
    const client = new FormClient(server.url);
    const csrf = await client.token('/login');
    // Fifteen different accounts: the address allows 20 failures and has 5 from the test above.
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) => client.post('/login', { csrf, email: `user${i}@example.com`, password: 'guess' })),
    );
    const counts = byStatus(answers.map((answer) => answer.status));
    expect(Object.keys(counts).sort()).toEqual(['401', '503']);
    const busy = answers.find((answer) => answer.status === 503)!;
    expect(busy.headers.get('retry-after')).toBe('2');
    expect(busy.html).toContain('Too many passwords are being checked at once: try again in 2 seconds.');
    // The refused attempts were not checked, so they did not count against the address.
    expect((await client.post('/login', { csrf, email: 'bob@example.com', password: PASSWORD })).status).toBe(303);
  });
});
