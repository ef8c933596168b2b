// People signing in to the dashboard of a real `errata start`: the first owner through the setup
// link it printed, a wrong password and an unknown email (one message), sign-out, the sessions
// list, an expired session, a hash with weaker parameters than today's made again at sign-in,
// CSRF refusals naming what did not match, throttling, and /api/v1 and /mcp staying
// bearer-only. Pages are held to test/support/browser.ts's bar.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../../../services/adapters/pglite/pglite-client.ts';
import { createSqlStores } from '../../../services/adapters/postgres/sql-stores.ts';
import { createPasswordHasher } from '../../../services/core/auth/password-hash.ts';
import { SESSION_IDLE_MS } from '../../../services/core/people/sessions.ts';
import { passwordHasher } from '../../../services/runtime/passwords.ts';
import { embeddedDatabaseDir } from '../../../services/runtime/embedded/database-dir.ts';
import { openCheckedPage } from '../../support/browser.ts';
import { FormClient } from '../../support/dashboard-forms.ts';
import { eventually, runCli, startServer, stopAndRemove, type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

let server: StandaloneServer;
let browser: Browser;

beforeAll(async () => ({ server, browser } = await startWithBrowser()));
afterAll(() => stopWithBrowser(server, browser));

const OWNER = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse battery staple' };
const WRONG = 'The email or password is not right.';

/** Clicks the form's button and answers the status of the page the post itself returned. */
async function submitRefused(page: Page, button: string): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await page.waitForLoadState('load');
  return response.status();
}

async function signInWithForm(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the first owner', () => {
  it('is created through the setup link errata start printed, and signed in; the link then no longer works', async () => {
    const code = await eventually(async () => /\/setup\?code=([0-9A-Za-z]{43})\n/.exec(server.output())?.[1], 'the setup link');
    const checked = await openCheckedPage(browser, `${server.url}/setup?code=${code}`, { screenshot: 'setup' });
    try {
      const { page } = checked;
      expect(checked.response.status()).toBe(200);
      await page.getByLabel('Name').fill(OWNER.name);
      await page.getByLabel('Email').fill(OWNER.email);
      await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
      await page.getByLabel('Password, again').fill('something else entirely');
      expect(await submitRefused(page, 'Create owner and sign in')).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'The two passwords are not the same: type the same password twice.',
      );
      expect(await page.getByLabel('Email').inputValue()).toBe(OWNER.email);
      await checked.recheck('setup-mismatch');

      // The refused attempt did not use the link up.
      await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
      await page.getByLabel('Password, again').fill(OWNER.password);
      await page.getByRole('button', { name: 'Create owner and sign in' }).click();
      await page.waitForURL(`${server.url}/organizations/default/issues`);
      await page.goto(`${server.url}/account`);
      await checked.recheck('account');
      const facts = await page.locator('dl').textContent();
      expect(await page.getByLabel('Name').inputValue()).toBe(OWNER.name);
      expect(facts).toContain(OWNER.email);
      expect(facts).toContain('owner');
      expect(await page.locator('tbody tr').count()).toBe(1);
      await expect(page.locator('tbody tr').textContent()).resolves.toContain('This session');

      const cookie = (await page.context().cookies()).find((c) => c.name === 'errata_session');
      expect(cookie).toMatchObject({ name: 'errata_session', httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    } finally {
      await checked.close();
    }

    const again = await openCheckedPage(browser, `${server.url}/setup?code=${code}`, { screenshot: 'setup-used' });
    try {
      expect(again.response.status()).toBe(410);
      await expect(again.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This link no longer works');
      await expect(again.page.getByRole('main').textContent()).resolves.toContain(
        'errata createuser --email you@example.com --owner',
      );
    } finally {
      await again.close();
    }
  });
});

describe('signing in', () => {
  it('refuses a wrong password and an unknown email with the same message', async () => {
    const checked = await openCheckedPage(browser, `${server.url}/login`, { screenshot: 'login-wrong-password' });
    try {
      const { page } = checked;
      await page.getByLabel('Email').fill(OWNER.email);
      await page.getByLabel('Password').fill('not the password');
      expect(await submitRefused(page, 'Sign in')).toBe(401);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(WRONG);
      await checked.recheck('login-wrong-password');

      await page.getByLabel('Email').fill('nobody@example.com');
      await page.getByLabel('Password').fill(OWNER.password);
      expect(await submitRefused(page, 'Sign in')).toBe(401);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(WRONG);
    } finally {
      await checked.close();
    }
  });

  it('leads to the account page, which lists the sessions, ends another one, and signs out', async () => {
    const other = new FormClient(server.url);
    expect((await other.signIn(OWNER.email, OWNER.password)).status).toBe(303);
    expect((await other.get('/account')).status).toBe(200);

    const checked = await openCheckedPage(browser, `${server.url}/login`, { screenshot: 'login-before' });
    try {
      const { page } = checked;
      await signInWithForm(page, OWNER.email, OWNER.password);
      await page.waitForURL(`${server.url}/organizations/default/issues`);
      await page.goto(`${server.url}/account`);
      await checked.recheck('account-sessions');
      const rows = page.locator('tbody tr');
      const before = await rows.count();
      expect(before).toBeGreaterThanOrEqual(2);

      // The FormClient's session is the newest but this one: end it from here.
      const othersRow = rows.nth(before - 2);
      expect(await othersRow.textContent()).not.toContain('This session');
      await othersRow.getByRole('button').click();
      await page.waitForURL(`${server.url}/account`);
      await page.waitForLoadState('load');
      expect(await rows.count()).toBe(before - 1);
      expect((await other.get('/account')).location).toBe('/login');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${server.url}/login`);
      await checked.recheck('signed-out');
      await page.goto(`${server.url}/account`);
      expect(new URL(page.url()).pathname).toBe('/login');
    } finally {
      await checked.close();
    }
  });

  it('ends the session a browser came with when it signs in again (rotation)', async () => {
    const client = new FormClient(server.url);
    await client.signIn(OWNER.email, OWNER.password);
    const first = client.jar.errata_session!;
    // Sign in again with the first session's cookie still sent.
    const again = await client.post('/login', { csrf: client.jar.errata_csrf!, email: OWNER.email, password: OWNER.password });
    expect(again.status).toBe(303);
    expect(again.cookies.errata_session).toBeDefined();
    expect(again.cookies.errata_session).not.toBe(first);
    const stale = new FormClient(server.url);
    stale.jar.errata_session = first;
    expect((await stale.get('/account')).location).toBe('/login');
    expect((await client.get('/account')).status).toBe(200);
  });

  it('throttles an account after five failures, saying how long to wait', async () => {
    const client = new FormClient(server.url);
    const csrf = await client.token('/login');
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await client.post('/login', { csrf, email: 'Target@example.com', password: `guess ${attempt}` })).status).toBe(401);
    }
    // Even the right password waits: the account is throttled, not the guess.
    const throttled = await client.post('/login', { csrf, email: 'target@example.com', password: 'guess 5' });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(throttled.html).toContain('Too many failed sign-ins for this email address. Wait 15 minutes and try again.');
    // Another account from the same address is not throttled by it.
    expect((await client.post('/login', { csrf, email: OWNER.email, password: OWNER.password })).status).toBe(303);
  });

  it("lets a browser that signed in before through while others' failures hold the account", async () => {
    const grace = { email: 'grace@example.com', password: 'a long password of her own' };
    await runCli(['createuser', '--email', grace.email, '--password-stdin'], server.env, grace.password);
    const known = new FormClient(server.url);
    expect((await known.signIn(grace.email, grace.password)).status).toBe(303);
    expect(known.jar.errata_device).toMatch(/^\d+\.[\w-]{22}\.[\w-]{43}$/);
    delete known.jar.errata_session; // the session ended; the browser keeps its device cookie

    const stranger = new FormClient(server.url);
    const csrf = await stranger.token('/login');
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await stranger.post('/login', { csrf, email: grace.email, password: `guess ${attempt}` })).status).toBe(401);
    }
    expect((await stranger.post('/login', { csrf, email: grace.email, password: grace.password })).status).toBe(429);
    // Before, she waited 15 minutes too, and anyone could keep her out for good this way.
    expect((await known.signIn(grace.email, grace.password)).status).toBe(303);

    // Her browser has five tries of its own.
    delete known.jar.errata_session;
    const token = await known.token('/login');
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await known.post('/login', { csrf: token, email: grace.email, password: `typo ${attempt}` })).status).toBe(401);
    }
    const held = await known.post('/login', { csrf: token, email: grace.email, password: grace.password });
    expect(held.status).toBe(429);
    expect(held.html).toContain('Too many failed sign-ins for this browser. Wait 15 minutes and try again.');
  });

  it('gives a session cookie nothing on /api/v1 and /mcp, which stay bearer-only', async () => {
    const client = new FormClient(server.url);
    await client.signIn(OWNER.email, OWNER.password);
    const cookie = `errata_session=${client.jar.errata_session}`;
    const api = await fetch(`${server.url}/api/v1/organizations/default/projects`, { headers: { cookie } });
    expect(api.status).toBe(401);
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(401);
  });
});

describe('cross-site request forgery', () => {
  it('refuses a post from another origin with a page naming both origins and the setting', async () => {
    const client = new FormClient(server.url);
    const csrf = await client.token('/login');
    const foreign = await client.post(
      '/login',
      { csrf, email: OWNER.email, password: OWNER.password },
      { origin: 'https://a.example' },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.html).toContain(`This request came from https://a.example but ERRATA_BASE_URL is ${server.url}.`);
    expect(foreign.html).toContain('set ERRATA_BASE_URL to that address');
    expect(foreign.cookies.errata_session).toBeUndefined();

    const crossSite = await client.post(
      '/login',
      { csrf, email: OWNER.email, password: OWNER.password },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.html).toContain('Sec-Fetch-Site: cross-site');
    // Without Origin, Sec-Fetch-Site: same-origin vouches for the request.
    const sameSite = await client.post(
      '/login',
      { csrf, email: OWNER.email, password: OWNER.password },
      { 'sec-fetch-site': 'same-origin' },
    );
    expect(sameSite.status).toBe(303);
  });

  it('refuses a post whose token does not match, before and after sign-in', async () => {
    const client = new FormClient(server.url);
    await client.token('/login');
    const forged = await client.post('/login', { csrf: 'forged', email: OWNER.email, password: OWNER.password });
    expect(forged.status).toBe(403);
    expect(forged.html).toContain('security token did not match');

    await client.signIn(OWNER.email, OWNER.password);
    // The pre-session cookie's token is not the session's.
    const logout = await client.post('/logout', { csrf: client.jar.errata_csrf! });
    expect(logout.status).toBe(403);
    expect((await client.get('/account')).status).toBe(200);
    const ended = await client.post('/logout', { csrf: await client.token('/account') });
    expect(ended.status).toBe(303);
    expect(ended.cookies.errata_session).toBe('');
    expect((await client.get('/account')).location).toBe('/login');
  });

  it('shows the refusal as a page that passes the browser checks, for a dashboard opened at another address than ERRATA_BASE_URL', async () => {
    // localhost reaches the same listener, but ERRATA_BASE_URL says 127.0.0.1: the browser's
    // Origin differs, as behind a proxy whose public address is not the configured one.
    const opened = server.url.replace('127.0.0.1', 'localhost');
    const checked = await openCheckedPage(browser, `${opened}/login`, { screenshot: 'csrf-login' });
    try {
      const { page } = checked;
      await page.getByLabel('Email').fill(OWNER.email);
      await page.getByLabel('Password').fill(OWNER.password);
      expect(await submitRefused(page, 'Sign in')).toBe(403);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        `This request came from ${opened} but ERRATA_BASE_URL is ${server.url}.`,
      );
      await checked.recheck('csrf-refused');
    } finally {
      await checked.close();
    }
  });
});

const NEW_PASSWORD = 'a new and longer passphrase';

describe('a password reset link', () => {
  it('sets a new password, ends every other session and signs in; the link then no longer works', async () => {
    const elsewhere = new FormClient(server.url);
    await elsewhere.signIn(OWNER.email, OWNER.password);
    const reset = await runCli(['resetpassword', '--email', OWNER.email], server.env);
    const link = /(http:\/\/\S+\/reset\?code=[0-9A-Za-z]{43})\n/.exec(reset.stdout)?.[1];
    expect(link, reset.stdout + reset.stderr).toBeDefined();

    const checked = await openCheckedPage(browser, link!, { screenshot: 'reset' });
    try {
      const { page } = checked;
      expect(checked.response.status()).toBe(200);
      // The browser checks the shortest length itself; the server still checks the longest.
      const tooLong = 'x'.repeat(1025);
      await page.getByLabel('Password', { exact: true }).fill(tooLong);
      await page.getByLabel('Password, again').fill(tooLong);
      expect(await submitRefused(page, 'Set password and sign in')).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('The password is too long: use at most 1024 characters.');
      await checked.recheck('reset-too-long');

      // The refused attempt did not use the link up.
      await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('Password, again').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.waitForURL(`${server.url}/organizations/default/issues`);
      await page.goto(`${server.url}/account`);
      await checked.recheck('reset-done');
      expect(await page.locator('tbody tr').count()).toBe(1);
    } finally {
      await checked.close();
    }
    expect((await elsewhere.get('/account')).location).toBe('/login');
    expect((await new FormClient(server.url).signIn(OWNER.email, OWNER.password)).status).toBe(401);
    expect((await new FormClient(server.url).signIn(OWNER.email, NEW_PASSWORD)).status).toBe(303);

    const used = await openCheckedPage(browser, link!, { screenshot: 'reset-used' });
    try {
      expect(used.response.status()).toBe(410);
      await expect(used.page.getByRole('main').textContent()).resolves.toContain('errata resetpassword --email');
    } finally {
      await used.close();
    }
  });
});

describe('an expired session', () => {
  it('leads back to sign-in once it has been idle too long', async () => {
    const client = new FormClient(server.url);
    await client.signIn(OWNER.email, NEW_PASSWORD);
    expect((await client.get('/account')).status).toBe(200);

    // Age every session in the database while the server is stopped (the store's touchSession
    // never moves backwards), then start it again.
    await server.stop();
    const db = await PGliteClient.open(embeddedDatabaseDir(server.dataDir));
    try {
      const idleSince = new Date(Date.now() - SESSION_IDLE_MS - 60_000);
      await db.query('UPDATE user_sessions SET last_seen_at = $1', [idleSince]);
      const owner = (await createSqlStores(db).users.findUserByEmail(OWNER.email))!;
      expect((await createSqlStores(db).users.listSessions(owner.id)).length).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
    server = await startServer({ dataDir: server.dataDir, port: server.port });
    expect((await client.get('/account')).location).toBe('/login');
    expect((await client.get('/')).location).toBe('/login');
  });
});

describe("a password hashed with weaker parameters than today's", () => {
  it("is hashed again with today's parameters when its owner signs in", async () => {
    const storedHash = async () => {
      const db = await PGliteClient.open(embeddedDatabaseDir(server.dataDir));
      try {
        return (await createSqlStores(db).users.findUserByEmail(OWNER.email))!.passwordHash!;
      } finally {
        await db.close();
      }
    };
    // As a hash made before the parameters were raised: planted while the server is stopped.
    await server.stop();
    const weak = await createPasswordHasher({ params: { ln: 10, r: 8, p: 1 } }).hash(NEW_PASSWORD);
    const db = await PGliteClient.open(embeddedDatabaseDir(server.dataDir));
    try {
      await db.query('UPDATE users SET password_hash = $1 WHERE email = $2', [weak, OWNER.email]);
    } finally {
      await db.close();
    }
    server = await startServer({ dataDir: server.dataDir, port: server.port });
    expect((await new FormClient(server.url).signIn(OWNER.email, NEW_PASSWORD)).status).toBe(303);

    await server.stop();
    const rehashed = await storedHash();
    server = await startServer({ dataDir: server.dataDir, port: server.port });
    expect(rehashed).not.toBe(weak);
    expect(rehashed).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
    expect(passwordHasher.needsRehash(rehashed)).toBe(false);
    expect(await passwordHasher.verify(NEW_PASSWORD, rehashed)).toBe(true);
    expect((await new FormClient(server.url).signIn(OWNER.email, NEW_PASSWORD)).status).toBe(303);
  });
});

describe('behind https', () => {
  it('names the cookies __Host- and marks them Secure when ERRATA_BASE_URL is https', async () => {
    const base = 'https://errata.example';
    const secure = await startServer({ env: { ERRATA_BASE_URL: base } });
    try {
      await runCli(['createuser', '--email', OWNER.email, '--owner', '--password-stdin'], secure.env, OWNER.password);
      // The server itself speaks plain HTTP, as behind a TLS-terminating proxy.
      const client = new FormClient(secure.url);
      const page = await client.get('/login');
      expect(page.headers.getSetCookie()).toEqual([
        expect.stringMatching(/^__Host-errata_csrf=[\w-]{43}; Path=\/; Max-Age=86400; HttpOnly; SameSite=Lax; Secure$/),
      ]);
      const token = /name="csrf" value="([^"]+)"/.exec(page.html)![1]!;
      const signedIn = await client.post(
        '/login',
        { csrf: token, email: OWNER.email, password: OWNER.password },
        { origin: base },
      );
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.getSetCookie()).toEqual([
        expect.stringMatching(/^__Host-errata_session=[\w-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/),
        expect.stringMatching(/^__Host-errata_device=\d+\.[\w.-]+; Path=\/; Max-Age=31536000; HttpOnly; SameSite=Lax; Secure$/),
      ]);
      expect((await client.get('/account')).status).toBe(200);
    } finally {
      await stopAndRemove(secure);
    }
  });
});

describe('behind a reverse proxy (ERRATA_TRUSTED_PROXIES=1)', () => {
  it("throttles the address the proxy saw, not the proxy's own that every person shares", async () => {
    const proxied = await startServer({ env: { ERRATA_TRUSTED_PROXIES: '1' } });
    try {
      await runCli(['createuser', '--email', OWNER.email, '--owner', '--password-stdin'], proxied.env, OWNER.password);
      const client = new FormClient(proxied.url);
      const csrf = await client.token('/login');
      const from = (forwardedFor: string) => ({ origin: proxied.url, 'x-forwarded-for': forwardedFor });
      // Twenty failures across accounts from one address, each with a first entry the client wrote itself.
      for (let attempt = 0; attempt < 20; attempt++) {
        const failed = await client.post(
          '/login',
          { csrf, email: `guess${attempt}@example.com`, password: 'wrong password' },
          from(`198.51.100.${attempt}, 203.0.113.7`),
        );
        expect(failed.status).toBe(401);
      }
      const held = await client.post(
        '/login',
        { csrf, email: 'another@example.com', password: 'wrong password' },
        from('192.0.2.1, 203.0.113.7'),
      );
      expect(held.status).toBe(429);
      expect(held.html).toContain('Too many failed sign-ins for your network address.');
      // Before, every request came from the proxy's address, and this one waited 15 minutes too.
      const other = await client.post('/login', { csrf, email: OWNER.email, password: OWNER.password }, from('203.0.113.8'));
      expect(other.status).toBe(303);
    } finally {
      await stopAndRemove(proxied);
    }
  });
});
