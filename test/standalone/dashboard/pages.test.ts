// The dashboard's pages in a real browser: each passes the bar of test/support/browser.ts (no
// console error, no CSP violation, no serious accessibility violation) in light and dark.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { PERSON_PASSWORD, signedInPerson } from '../../support/dashboard-people.ts';
import { type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

let server: StandaloneServer;
let browser: Browser;
/** A signed-in member's cookies, for the pages behind sign-in. */
let member: Record<string, string>;

beforeAll(async () => {
  ({ server, browser } = await startWithBrowser());
  member = (await signedInPerson(server, 'member')).client.jar;
});
afterAll(() => stopWithBrowser(server, browser));

describe('the sign-in page', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`renders cleanly in the ${colorScheme} scheme`, async () => {
      const checked = await openCheckedPage(browser, `${server.url}/login`, { colorScheme, screenshot: `login-${colorScheme}` });
      try {
        const { page } = checked;
        expect(checked.response.status()).toBe(200);
        expect(await page.title()).toBe('Sign in · Errata');
        await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in');
        expect(await page.getByLabel('Email').getAttribute('type')).toBe('email');
        expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
        expect(await page.getByRole('main').count()).toBe(1);
      } finally {
        await checked.close();
      }
    });
  }

  it('offers a skip link as the first Tab stop, leading to the main landmark', async () => {
    const checked = await openCheckedPage(browser, `${server.url}/login`, { screenshot: 'login-skip-link' });
    try {
      const { page } = checked;
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    } finally {
      await checked.close();
    }
  });

  it('is where / leads', async () => {
    const checked = await openCheckedPage(browser, `${server.url}/`, { screenshot: 'root' });
    try {
      expect(new URL(checked.page.url()).pathname).toBe('/login');
    } finally {
      await checked.close();
    }
  });

  it('answers a sign-in by nobody with the form again, the email kept, and a message that names neither', async () => {
    const checked = await openCheckedPage(browser, `${server.url}/login`, { screenshot: 'login' });
    try {
      const { page } = checked;
      await page.getByLabel('Email').fill('someone@example.com');
      await page.getByLabel('Password').fill('correct horse battery staple');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      expect(response.status()).toBe(401);
      await page.waitForLoadState('load');
      await expect(page.getByRole('alert').textContent()).resolves.toBe('The email or password is not right.');
      expect(await page.getByLabel('Email').inputValue()).toBe('someone@example.com');
      await checked.recheck('login-refused');
    } finally {
      await checked.close();
    }
  });
});

describe('an unknown dashboard address', () => {
  it.each(['light', 'dark'] as const)('gets a 404 page saying which address has no page (%s)', async (colorScheme) => {
    const path = '/organizations/default/nothing-here';
    const checked = await openCheckedPage(browser, `${server.url}${path}`, {
      colorScheme,
      cookies: member,
      screenshot: `not-found-${colorScheme}`,
    });
    try {
      const { page } = checked;
      expect(checked.response.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Page not found');
      await expect(page.getByRole('main').textContent()).resolves.toContain(path);
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual([
        'Issues',
        "What's new",
        'Logs',
        'Projects',
      ]);
      // The top bar names the signed-in person (their name defaults to the email's local part).
      await expect(
        page
          .getByRole('banner')
          .getByRole('link', { name: /^member-/ })
          .getAttribute('href'),
      ).resolves.toBe('/account');
    } finally {
      await checked.close();
    }
  });
});

describe('an organization page, signed out', () => {
  it('leads to sign-in, and after it back to the page', async () => {
    const path = '/organizations/default/nothing-here';
    const checked = await openCheckedPage(browser, `${server.url}${path}`, { screenshot: 'login-next' });
    try {
      const { page } = checked;
      expect(new URL(page.url()).pathname).toBe('/login');
      const person = await signedInPerson(server, 'member');
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(PERSON_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${server.url}${path}`);
    } finally {
      await checked.close();
    }
  });
});
