// /account in a real browser: a person sets their name, time zone and theme (times then show in
// that zone, the theme beats the system's), and changes their password given the current one,
// which ends their other sessions and gives this one a new cookie; wrong current passwords count
// as failed sign-ins. Refused settings come back with the reason.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { FormClient } from '../../support/dashboard-forms.ts';
import { PERSON_PASSWORD, signedInPerson } from '../../support/dashboard-people.ts';
import { type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

let server: StandaloneServer;
let browser: Browser;

beforeAll(async () => ({ server, browser } = await startWithBrowser()));
afterAll(() => stopWithBrowser(server, browser));

describe('the account settings', () => {
  it('keep a name, time zone and theme: exact times show in that zone and the theme beats the system', async () => {
    const person = await signedInPerson(server, 'member');
    const checked = await openCheckedPage(browser, `${server.url}/account`, {
      cookies: person.client.jar,
      screenshot: 'account',
    });
    try {
      const { page } = checked;
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const lightBackground = await background();
      await page.getByLabel('Name').fill('Ada Lovelace');
      await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
      await page.getByLabel('Dark').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForURL(`${server.url}/account?saved=profile`);
      await expect(page.getByRole('status').textContent()).resolves.toBe('Your settings are saved.');
      await checked.recheck('account-saved-dark');
      expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
      // The browser prefers light; the person's dark wins.
      expect(await background()).not.toBe(lightBackground);
      expect(await page.getByRole('banner').getByRole('link', { name: 'Ada Lovelace' }).count()).toBe(1);
      expect(await page.getByLabel('Time zone').inputValue()).toBe('Asia/Tokyo');
      expect(await page.locator('tbody time').first().getAttribute('title')).toMatch(/GMT\+9/);

      // Back to the browser's zone: the hover text is then the browser's own (UTC here), set by our script.
      await page.getByLabel('Time zone').selectOption('');
      await page.getByLabel('As the system').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForURL(`${server.url}/account?saved=profile`);
      expect(await page.locator('html').getAttribute('data-theme')).toBeNull();
      expect(await background()).toBe(lightBackground);
      const time = page.locator('tbody time').first();
      expect(await time.getAttribute('data-local')).toBe('');
      expect(await time.getAttribute('title')).not.toMatch(/GMT\+9/);
    } finally {
      await checked.close();
    }
  });

  it('refuses an unknown time zone or theme and an empty name with the reason, changing nothing', async () => {
    const person = await signedInPerson(server, 'member');
    const csrf = await person.client.token('/account');
    const post = (fields: Record<string, string>) =>
      person.client.post('/account', { csrf, name: 'Kept', timeZone: '', theme: 'system', ...fields });
    const zone = await post({ timeZone: 'Mars/Olympus' });
    expect(zone.status).toBe(400);
    expect(zone.html).toContain('&quot;Mars/Olympus&quot; is not a time zone: choose one from the list, such as Europe/Berlin.');
    expect((await post({ theme: 'neon' })).html).toContain('Unknown theme &quot;neon&quot;');
    expect((await post({ name: '  ' })).html).toContain('The name is empty');
    expect((await person.client.get('/account')).html).not.toContain('Kept');
  });

  it('refuses to end a session whose id is no session id with 400 (past a Postgres integer it was a 500)', async () => {
    const person = await signedInPerson(server, 'member');
    const csrf = await person.client.token('/account');
    for (const session of ['2147483648', '0', 'x']) {
      const refused = await person.client.post('/account/sessions/end', { csrf, session });
      expect(refused.status).toBe(400);
      expect(refused.html).toContain('the session to end is not a session id: use the End button on /account');
    }
    expect((await person.client.get('/account')).status).toBe(200);
  });
});

describe('changing the password', () => {
  it('needs the current one, then ends every other session and the old password stops working', async () => {
    const person = await signedInPerson(server, 'member');
    const elsewhere = new FormClient(server.url);
    expect((await elsewhere.signIn(person.email, PERSON_PASSWORD)).status).toBe(303);
    const checked = await openCheckedPage(browser, `${server.url}/account`, {
      cookies: person.client.jar,
      colorScheme: 'dark',
      screenshot: 'account-password',
    });
    try {
      const { page } = checked;
      const fill = async (current: string, password: string, again: string) => {
        await page.getByLabel('Current password').fill(current);
        await page.getByLabel('New password', { exact: true }).fill(password);
        await page.getByLabel('New password, again').fill(again);
        const [response] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          page.getByRole('button', { name: 'Change password' }).click(),
        ]);
        await page.waitForLoadState('load');
        return response.status();
      };
      expect(await fill('not-the-password', 'a new password', 'a new password')).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'The current password is not right: type the password you signed in with.',
      );
      await checked.recheck('account-password-refused');
      expect(await fill(PERSON_PASSWORD, 'a new password', 'another one')).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^The two new passwords are not the same/);
      expect((await elsewhere.get('/account')).status).toBe(200);

      expect(await fill(PERSON_PASSWORD, 'a new password', 'a new password')).toBe(303);
      expect(new URL(page.url()).search).toBe('?saved=password');
      await expect(page.getByRole('status').textContent()).resolves.toBe(
        'Your password is changed; every other session has ended.',
      );
      expect(await page.locator('tbody tr').count()).toBe(1);
    } finally {
      await checked.close();
    }
    expect((await elsewhere.get('/account')).location).toBe('/login');
    // The browser that changed it goes on with a new cookie; a copy of its old one (the jar it
    // started with) no longer works. Before, that copy outlived the change.
    expect((await person.client.get('/account')).location).toBe('/login');
    expect((await new FormClient(server.url).signIn(person.email, PERSON_PASSWORD)).status).toBe(401);
    expect((await new FormClient(server.url).signIn(person.email, 'a new password')).status).toBe(303);
  });

  it('counts wrong current passwords as failed sign-ins: after five it waits, even with the right one', async () => {
    const person = await signedInPerson(server, 'member');
    const change = async (current: string) =>
      person.client.post('/account/password', {
        csrf: await person.client.token('/account'),
        current,
        password: 'a new password',
        password2: 'a new password',
      });
    for (let guess = 0; guess < 5; guess++) expect((await change(`guess ${guess}`)).status).toBe(400);
    const held = await change(PERSON_PASSWORD);
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(held.html).toContain('Too many wrong passwords in this session: wait 15 minutes and try again.');
    // Sign-in counts the same failures: the password cannot be guessed half here, half there.
    expect((await new FormClient(server.url).signIn(person.email, PERSON_PASSWORD)).status).toBe(429);
  });

  it("lets the session change its password while others' failed sign-ins hold the account", async () => {
    const person = await signedInPerson(server, 'member');
    const stranger = new FormClient(server.url);
    for (let guess = 0; guess < 5; guess++) expect((await stranger.signIn(person.email, `guess ${guess}`)).status).toBe(401);
    expect((await stranger.signIn(person.email, PERSON_PASSWORD)).status).toBe(429);
    const changed = await person.client.post('/account/password', {
      csrf: await person.client.token('/account'),
      current: PERSON_PASSWORD,
      password: 'a new password',
      password2: 'a new password',
    });
    // Before, the stranger's guesses held her here too (429).
    expect(changed.status).toBe(303);
    // Her browser is trusted under the new password: signed out, it signs in while a stranger's guesses hold the account.
    for (let guess = 0; guess < 5; guess++) expect((await stranger.signIn(person.email, `again ${guess}`)).status).toBe(401);
    expect((await stranger.signIn(person.email, 'a new password')).status).toBe(429);
    delete person.client.jar.errata_session;
    expect((await person.client.signIn(person.email, 'a new password')).status).toBe(303);
  });
});
