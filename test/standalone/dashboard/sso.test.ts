// Single sign-on against a real OpenID provider (oidc-provider on 127.0.0.1, test/support/
// openid-provider.ts), through Debian's chromium: the provider's own login and consent forms are
// filled in, and Errata's pages are held to test/support/browser.ts's bar. An owner-group account
// signs in as owner, a member-group one is created as member, an unmapped one and (with creating
// users off) an unknown one are refused, an existing account's role follows its group, a
// tampered state makes no session, an account stays tied to the provider identity that first
// signed into it, and the password form keeps working beside the button.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { FormClient } from '../../support/dashboard-forms.ts';
import { PERSON_PASSWORD, signedInPerson } from '../../support/dashboard-people.ts';
import { startOpenIdProvider, type OpenIdProvider, type TestAccount } from '../../support/openid-provider.ts';
import { freePort, runCli, startServer, stopAndRemove, type StandaloneServer } from '../../support/standalone-server.ts';

const account = (email: string, groups: string[], verified: boolean | 'unsaid' = true): TestAccount => ({
  email,
  ...(verified === 'unsaid' ? {} : { email_verified: verified }),
  name: email.split('@')[0]!.replace(/^./, (c) => c.toUpperCase()),
  groups,
});

const ACCOUNTS = {
  olive: account('olive@example.com', ['staff', 'errata-owners']),
  mina: account('mina@example.com', ['errata-devs']),
  nobody: account('nobody@example.com', ['staff']),
  victor: account('victor@example.com', ['errata-devs'], false),
  // The provider says nothing of whether this address is verified; an account with it exists.
  noel: account('noel@example.com', ['errata-owners'], 'unsaid'),
  dana: account('dana@example.com', ['errata-admins']),
  uma: account('uma@example.com', ['errata-devs']),
  // Never signed in before an invitee joins under her address.
  olga: account('olga@example.com', ['errata-owners']),
  // Later given dana's address, as a provider may give a departed person's address to someone new.
  newcomer: account('newcomer@example.com', ['errata-admins']),
};

const LOCAL_OWNER = { email: 'local@example.com', password: 'correct horse battery staple' };

let provider: OpenIdProvider;
let browser: Browser;
let creating: StandaloneServer;
let portWithoutCreating: number;

/** ERRATA_OIDC_* for a server, pointing at the test's provider. */
const ssoEnv = (createUsers: boolean): Record<string, string> => ({
  ERRATA_OIDC_ISSUER: provider.issuer,
  ERRATA_OIDC_CLIENT_ID: provider.clientId,
  ERRATA_OIDC_CLIENT_SECRET: provider.clientSecret,
  ERRATA_OIDC_ROLES: 'errata-owners=owner,errata-admins=admin,errata-devs=member',
  ERRATA_OIDC_SCOPES: 'openid email profile groups',
  ERRATA_OIDC_NAME: 'Test ID',
  ERRATA_OIDC_CREATE_USERS: createUsers ? 'true' : 'false',
  // The provider's log lines are not Errata's; Errata logs at info so the client secret's absence is checked.
  ERRATA_LOG_LEVEL: 'info',
});

beforeAll(async () => {
  const portCreating = await freePort();
  portWithoutCreating = await freePort();
  const callback = (port: number) => `http://127.0.0.1:${port}/sign-in/oidc/callback`;
  provider = await startOpenIdProvider(ACCOUNTS, [callback(portCreating), callback(portWithoutCreating)]);
  browser = await launchChromium(inject('chromium'));
  creating = await startServer({ port: portCreating, env: ssoEnv(true) });
  const created = await runCli(
    ['createuser', '--email', LOCAL_OWNER.email, '--owner', '--password-stdin'],
    creating.env,
    `${LOCAL_OWNER.password}\n`,
  );
  expect(created.code, created.stderr).toBe(0);
});

afterAll(async () => {
  await browser?.close();
  if (creating) await stopAndRemove(creating);
  await provider?.close();
});

/** The provider's stylesheet imports a web font; this machine has no internet, so it gets an empty one. */
async function offline(page: Page): Promise<void> {
  await page.route('https://fonts.googleapis.com/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/css', body: '' }),
  );
}

/** From Errata's sign-in page: the button, then the provider's login and consent forms. */
async function signInAtProvider(page: Page, server: StandaloneServer, login: string): Promise<void> {
  await offline(page);
  await page.getByRole('link', { name: 'Sign in with Test ID' }).click();
  await page.waitForURL((url) => url.origin === provider.issuer);
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.origin === server.url);
  await page.waitForLoadState('load');
}

/** The signed-in person's role, read where they see it: the account page. */
async function roleOnAccountPage(page: Page, server: StandaloneServer): Promise<string | null> {
  await page.goto(`${server.url}/account`);
  return page.locator('dl').textContent();
}

/** The role on the account page of a person signed in with a FormClient. */
async function roleOf(client: FormClient): Promise<string | undefined> {
  const { html } = await client.get('/account');
  return /<dt>Role<\/dt>\s*<dd>([a-z]+)<\/dd>/.exec(html)?.[1];
}

const hasSession = async (page: Page) => (await page.context().cookies()).some((c) => c.name === 'errata_session');

describe('the sign-in page with single sign-on', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`shows "Sign in with Test ID" above the password form (${colorScheme})`, async () => {
      const checked = await openCheckedPage(browser, `${creating.url}/login`, {
        screenshot: `sso-login-${colorScheme}`,
        colorScheme,
      });
      try {
        const { page } = checked;
        await expect(page.getByRole('link', { name: 'Sign in with Test ID' }).getAttribute('href')).resolves.toBe(
          '/sign-in/oidc',
        );
        await expect(page.getByText('or with your password').isVisible()).resolves.toBe(true);
        await expect(page.getByRole('button', { name: 'Sign in', exact: true }).isVisible()).resolves.toBe(true);
      } finally {
        await checked.close();
      }
    });
  }

  it('still signs the local owner in with their password', async () => {
    const checked = await openCheckedPage(browser, `${creating.url}/login`, { screenshot: 'sso-password' });
    try {
      const { page } = checked;
      await page.getByLabel('Email').fill(LOCAL_OWNER.email);
      await page.getByLabel('Password', { exact: true }).fill(LOCAL_OWNER.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(/\/organizations\//);
      await expect(roleOnAccountPage(page, creating)).resolves.toContain('owner');
    } finally {
      await checked.close();
    }
  });
});

describe('signing in at the provider (creating users on)', () => {
  it('lets an account in the owners group in as an owner, created on first sign-in, with a one-use binding cookie', async () => {
    const checked = await openCheckedPage(browser, `${creating.url}/login`, { screenshot: 'sso-olive-login' });
    try {
      const { page } = checked;
      await offline(page);
      await page.getByRole('link', { name: 'Sign in with Test ID' }).click();
      await page.waitForURL((url) => url.origin === provider.issuer);
      const binding = (await page.context().cookies(creating.url)).find((c) => c.name === 'errata_oidc');
      expect(binding).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      expect(binding!.expires - Date.now() / 1000).toBeLessThanOrEqual(600);
      await page.goBack();
      await signInAtProvider(page, creating, 'olive');
      expect(new URL(page.url()).pathname).toMatch(/^\/organizations\//);
      await checked.recheck('sso-olive-signed-in');
      expect((await page.context().cookies(creating.url)).some((c) => c.name === 'errata_oidc')).toBe(false);
      const facts = await roleOnAccountPage(page, creating);
      expect(facts).toContain('olive@example.com');
      expect(facts).toContain('owner');
    } finally {
      await checked.close();
    }
  });

  it('creates an account in the developers group as a member', async () => {
    const checked = await openCheckedPage(browser, `${creating.url}/login`, { screenshot: 'sso-mina-login' });
    try {
      const { page } = checked;
      await signInAtProvider(page, creating, 'mina');
      expect(new URL(page.url()).pathname).toMatch(/^\/organizations\//);
      const facts = await roleOnAccountPage(page, creating);
      expect(facts).toContain('mina@example.com');
      expect(facts).toContain('member');
      expect(facts).not.toContain('owner');
    } finally {
      await checked.close();
    }
  });

  it('refuses an account in no mapped group, naming the claim and who can grant access', async () => {
    const checked = await openCheckedPage(browser, `${creating.url}/login`, { screenshot: 'sso-nobody-login' });
    try {
      const { page } = checked;
      const refused = page.waitForResponse((r) => r.url().includes('/sign-in/oidc/callback'));
      await signInAtProvider(page, creating, 'nobody');
      expect((await refused).status()).toBe(403);
      await checked.recheck('sso-refused-no-role');
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'Your account has no value in its "groups" claim that Errata maps to a role. An owner of Errata must grant you access (have you added to a mapped group), then sign in again.',
      );
      expect(await hasSession(page)).toBe(false);
      const listed = await runCli(['listusers'], creating.env);
      expect(listed.stdout).not.toContain('nobody@example.com');
    } finally {
      await checked.close();
    }
  });

  it('refuses an account whose provider says its email is not verified', async () => {
    const checked = await openCheckedPage(browser, `${creating.url}/login`, { screenshot: 'sso-victor-login' });
    try {
      const { page } = checked;
      await signInAtProvider(page, creating, 'victor');
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'The provider says your email address victor@example.com is not verified. Verify it there, then sign in again.',
      );
      expect(await hasSession(page)).toBe(false);
    } finally {
      await checked.close();
    }
  });

  it('does not let an email the provider did not say is verified pick an existing account', async () => {
    // Before, an absent email_verified was trusted: whoever the provider let type noel's address
    // signed into noel's account, with the role of their own group (here owner).
    const created = await runCli(
      ['createuser', '--email', 'noel@example.com', '--role', 'member', '--password-stdin'],
      creating.env,
      `${PERSON_PASSWORD}\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    const checked = await openCheckedPage(browser, `${creating.url}/login`, { screenshot: 'sso-noel-login' });
    try {
      const { page } = checked;
      const refused = page.waitForResponse((r) => r.url().includes('/sign-in/oidc/callback'));
      await signInAtProvider(page, creating, 'noel');
      expect((await refused).status()).toBe(403);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        "An Errata account uses noel@example.com, but the provider did not say that this address is verified (it sent no email_verified claim), so it cannot sign you into that account. Sign in with that account's password; or, if only this provider's administrators can set its email addresses, an owner of Errata can set ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL=true.",
      );
      expect(await hasSession(page)).toBe(false);
    } finally {
      await checked.close();
    }
    const again = new FormClient(creating.url);
    expect((await again.signIn('noel@example.com', PERSON_PASSWORD)).status).toBe(303);
    await expect(roleOf(again)).resolves.toBe('member');
  });

  it("does not give an account that joined under someone's address, by an invitation naming none, to their sign-on", async () => {
    // Before, olga's first sign-on signed into the invitee's account and made it an owner: the
    // invitee's password then signed in an owner.
    const owner = await signedInPerson(creating, 'owner');
    const members = '/organizations/default/settings/members';
    const minted = await owner.client.post(`${members}/invitations`, {
      csrf: await owner.client.token(members),
      role: 'member',
      email: '',
    });
    expect(minted.status).toBe(201);
    const link = new URL(new RegExp(`${creating.url}/invitations/[0-9A-Za-z]{43}`).exec(minted.html)![0]).pathname;
    const invitee = new FormClient(creating.url);
    const joined = await invitee.post(link, {
      csrf: await invitee.token(link),
      name: 'Not Olga',
      email: 'olga@example.com',
      password: PERSON_PASSWORD,
      password2: PERSON_PASSWORD,
    });
    expect(joined.status).toBe(303);

    const checked = await openCheckedPage(browser, `${creating.url}/login`, { screenshot: 'sso-olga-login' });
    try {
      const { page } = checked;
      const refused = page.waitForResponse((r) => r.url().includes('/sign-in/oidc/callback'));
      await signInAtProvider(page, creating, 'olga');
      expect((await refused).status()).toBe(403);
      await checked.recheck('sso-refused-self-chosen');
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        "An Errata account uses olga@example.com, but it joined by an invitation that named no email, so nobody vouched that the address is its holder's. Sign in with that account's password, or an owner must remove it (errata deleteuser) so that single sign-on makes yours.",
      );
      expect(await hasSession(page)).toBe(false);
    } finally {
      await checked.close();
    }
    const again = new FormClient(creating.url);
    expect((await again.signIn('olga@example.com', PERSON_PASSWORD)).status).toBe(303);
    await expect(roleOf(again)).resolves.toBe('member');
  });

  it('tells an owner who removes someone that single sign-on would create their account again', async () => {
    // Before, the notice said they could not sign in again, while their next sign-on made a new account.
    const owner = await signedInPerson(creating, 'owner');
    const person = await signedInPerson(creating, 'member');
    const members = '/organizations/default/settings/members';
    const html = (await owner.client.get(members)).html;
    const id = new RegExp(`for="role-(\\d+)">Role of ${person.email.replace(/[.+]/g, '\\$&')}<`).exec(html)?.[1];
    expect(id).toBeDefined();
    const removed = await owner.client.post(`${members}/remove`, { csrf: await owner.client.token(members), user: id! });
    expect(removed.status).toBe(303);
    const notice = await owner.client.get(removed.location!);
    expect(notice.html).toContain(
      'Removed: they are signed out. Single sign-on creates accounts here, so they can sign in again while the provider still grants them a role: remove them from its group too.',
    );
  });

  it('refuses a callback whose state was tampered with, and makes no session', async () => {
    const checked = await openCheckedPage(browser, `${creating.url}/login`, { screenshot: 'sso-tampered-login' });
    try {
      const { page } = checked;
      // The provider's genuine answer, its state changed by one character on the way back.
      provider.tamperWithState(true);
      const refused = page.waitForResponse((r) => r.url().includes('/sign-in/oidc/callback'));
      try {
        await signInAtProvider(page, creating, 'mina');
      } finally {
        provider.tamperWithState(false);
      }
      expect((await refused).status()).toBe(400);
      await checked.recheck('sso-tampered-state');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign-in not accepted');
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'The sign-in did not come from this browser, or took longer than ten minutes: start again from the sign-in page.',
      );
      expect(await hasSession(page)).toBe(false);
    } finally {
      await checked.close();
    }
  });

  it('refuses a callback in a browser that did not start the sign-in', async () => {
    const response = await fetch(`${creating.url}/sign-in/oidc/callback?code=abc&state=def`, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.getSetCookie().some((c) => c.startsWith('errata_session='))).toBe(false);
    await expect(response.text()).resolves.toContain('The sign-in did not come from this browser');
  });

  it('never writes the client secret to the log', () => {
    expect(creating.output()).not.toContain(provider.clientSecret);
  });
});

describe('signing in at the provider (creating users off)', () => {
  let server: StandaloneServer;
  beforeAll(async () => {
    server = await startServer({ port: portWithoutCreating, env: ssoEnv(false) });
    const created = await runCli(
      ['createuser', '--email', 'dana@example.com', '--role', 'member', '--password-stdin'],
      server.env,
      'a password for dana\n',
    );
    expect(created.code, created.stderr).toBe(0);
  });
  afterAll(async () => {
    if (server) await stopAndRemove(server);
  });

  it('refuses an account Errata does not know, saying an owner must add it', async () => {
    const checked = await openCheckedPage(browser, `${server.url}/login`, { screenshot: 'sso-uma-login' });
    try {
      const { page } = checked;
      await signInAtProvider(page, server, 'uma');
      await checked.recheck('sso-refused-unknown');
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'Errata has no account for uma@example.com, and single sign-on does not create accounts here. An owner must add you first (errata createuser), then sign in again.',
      );
      expect(await hasSession(page)).toBe(false);
      expect((await runCli(['listusers'], server.env)).stdout).not.toContain('uma@example.com');
    } finally {
      await checked.close();
    }
  });

  it('signs an existing account in with the role its group grants', async () => {
    const checked = await openCheckedPage(browser, `${server.url}/login`, { screenshot: 'sso-dana-login' });
    try {
      const { page } = checked;
      await signInAtProvider(page, server, 'dana');
      expect(new URL(page.url()).pathname).toMatch(/^\/organizations\//);
      const facts = await roleOnAccountPage(page, server);
      expect(facts).toContain('dana@example.com');
      expect(facts).toContain('admin');
    } finally {
      await checked.close();
    }
  });
  it('keeps an account tied to the provider identity that signed into it, whatever the email says later', async () => {
    // After the test above, dana's account is linked to her identity at the provider.
    ACCOUNTS.dana.email = 'dana.renamed@example.com';
    ACCOUNTS.newcomer.email = 'dana@example.com';
    try {
      const renamed = await openCheckedPage(browser, `${server.url}/login`, { screenshot: 'sso-dana-renamed' });
      try {
        await signInAtProvider(renamed.page, server, 'dana');
        const facts = await roleOnAccountPage(renamed.page, server);
        expect(facts).toContain('dana@example.com');
      } finally {
        await renamed.close();
      }
      const newcomer = await openCheckedPage(browser, `${server.url}/login`, { screenshot: 'sso-newcomer' });
      try {
        await signInAtProvider(newcomer.page, server, 'newcomer');
        await newcomer.recheck('sso-refused-linked-elsewhere');
        await expect(newcomer.page.getByRole('alert').textContent()).resolves.toContain(
          'The Errata account for dana@example.com signs in as another account of this provider.',
        );
        expect(await hasSession(newcomer.page)).toBe(false);
      } finally {
        await newcomer.close();
      }
    } finally {
      ACCOUNTS.dana.email = 'dana@example.com';
      ACCOUNTS.newcomer.email = 'newcomer@example.com';
    }
  });
});
