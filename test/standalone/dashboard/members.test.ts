// The Members page in a real browser against a real server: an owner invites someone (the link
// shown once), the link is accepted in a fresh browser and signs the new person in with the
// invited role, and works no more; a role change applies on the person's next request; a
// removed person's session ends at once; the only owner is neither demoted nor removed; admins
// and members are refused every page and post at the HTTP level.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { FormClient } from '../../support/dashboard-forms.ts';
import { PERSON_PASSWORD, signedInPerson } from '../../support/dashboard-people.ts';
import type { StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

let server: StandaloneServer;
let browser: Browser;
const ORG = '/organizations/default';
const PAGE = `${ORG}/settings/members`;
const LINK = /\/invitations\/([0-9A-Za-z]{43})$/;

beforeAll(async () => ({ server, browser } = await startWithBrowser()));
afterAll(() => stopWithBrowser(server, browser));

/** Clicks a button that posts and answers the status of the page the post itself returned. */
async function submit(page: Page, button: string): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await page.waitForLoadState('load');
  return response.status();
}

/** Each listed person's id by email, from the role forms' labels. */
function peopleOn(html: string): Map<string, string> {
  return new Map([...html.matchAll(/for="role-(\d+)">Role of ([^<]+)<\/label>/g)].map((m) => [m[2]!, m[1]!]));
}

describe('inviting someone', () => {
  it('shows the link once; the link opened in a fresh browser creates the person with the role, signed in; it then works no more', async () => {
    const owner = await signedInPerson(server, 'owner');
    const newcomer = `grace-${process.pid}@example.com`;
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, { cookies: owner.client.jar, screenshot: 'members' });
    let link: string;
    try {
      const { page } = checked;
      await expect(
        page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Members' }).getAttribute('aria-current'),
      ).resolves.toBe('page');
      await page.getByLabel('Role', { exact: true }).selectOption('admin');
      await page.getByLabel('Email (optional)').fill(newcomer);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create invitation link' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(response.status()).toBe(201);
      expect(response.headers()['cache-control']).toBe('no-store');
      await checked.recheck('members-invited');
      link = (await page.locator('#invitation-link').textContent())!;
      expect(link).toMatch(new RegExp(`^${server.url}/invitations/[0-9A-Za-z]{43}$`));
      await expect(page.getByRole('heading', { name: /Invitation for .* as admin created/ }).count()).resolves.toBe(1);
      await expect(page.getByRole('region', { name: 'Pending invitations' }).textContent()).resolves.toContain(newcomer);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      await page.getByRole('button', { name: 'Copy the invitation link' }).click();
      await page.locator('button[data-copy="invitation-link"] .copy-label', { hasText: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('members-invited-narrow');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
      await page.setViewportSize({ width: 1280, height: 720 });

      // Reloaded, the page lists the invitation but holds no link.
      await page.goto(`${server.url}${PAGE}`);
      expect(await page.content()).not.toContain(LINK.exec(link)![1]);
    } finally {
      await checked.close();
    }
    expect((await owner.client.get(PAGE)).html).not.toContain(LINK.exec(link)![1]);

    const invited = await openCheckedPage(browser, link, { screenshot: 'invitation' });
    try {
      const { page } = invited;
      expect(invited.response.status()).toBe(200);
      await expect(page.getByRole('main').textContent()).resolves.toContain('You are invited as admin');
      // The email the owner named is the one they join with: shown, not editable.
      expect(await page.getByLabel('Email').inputValue()).toBe(newcomer);
      expect(await page.getByLabel('Email').isEditable()).toBe(false);
      // A refused form keeps the link working.
      await page.getByLabel('Name').fill('Grace Hopper');
      await page.getByLabel('Password', { exact: true }).fill('a long enough password');
      await page.getByLabel('Password, again').fill('another long password');
      expect(await submit(page, 'Join and sign in')).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'The two passwords are not the same: type the same password twice.',
      );
      await invited.recheck('invitation-refused');
      expect(await page.getByLabel('Email').inputValue()).toBe(newcomer);
      await page.getByLabel('Password', { exact: true }).fill('a long enough password');
      await page.getByLabel('Password, again').fill('a long enough password');
      await page.getByRole('button', { name: 'Join and sign in' }).click();
      await page.waitForURL(`${server.url}${ORG}/issues`);
      await page.goto(`${server.url}/account`);
      await expect(page.locator('dl').textContent()).resolves.toContain('admin');
    } finally {
      await invited.close();
    }

    // They sign in with the invited role: an admin's page opens, an owner's does not.
    const grace = new FormClient(server.url);
    expect((await grace.signIn(newcomer, 'a long enough password')).status).toBe(303);
    expect((await grace.get(`${ORG}/alert-channels`)).status).toBe(200);
    expect((await grace.get(PAGE)).status).toBe(403);

    const again = await openCheckedPage(browser, link, { screenshot: 'invitation-used' });
    try {
      expect(again.response.status()).toBe(410);
      await expect(again.page.getByRole('main').textContent()).resolves.toContain(
        'This invitation was used, revoked or has expired.',
      );
    } finally {
      await again.close();
    }
    const listed = (await owner.client.get(PAGE)).html;
    expect(listed).toContain(newcomer);
    expect(listed).toContain('No pending invitation.');
  });

  it('looks right in the dark, and a revoked link works no more; posts from elsewhere mint nothing', async () => {
    const owner = await signedInPerson(server, 'owner');
    const csrf = await owner.client.token(PAGE);
    const minted = await owner.client.post(`${PAGE}/invitations`, { csrf, role: 'member', email: '' });
    expect(minted.status).toBe(201);
    const link = new RegExp(`${server.url}/invitations/[0-9A-Za-z]{43}`).exec(minted.html)![0];

    const dark = await openCheckedPage(browser, link, { screenshot: 'invitation-dark', colorScheme: 'dark' });
    try {
      expect(await dark.page.getByLabel('Email').inputValue()).toBe('');
    } finally {
      await dark.close();
    }
    const members = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: owner.client.jar,
      colorScheme: 'dark',
      screenshot: 'members-dark',
    });
    try {
      await members.page.getByRole('button', { name: /^Revoke the member invitation of / }).click();
      await members.page.waitForURL(`${server.url}${PAGE}?done=revoked`);
      await expect(members.page.getByRole('status').textContent()).resolves.toBe('Invitation revoked: its link no longer works.');
      await members.recheck('members-revoked-dark');
    } finally {
      await members.close();
    }
    expect((await new FormClient(server.url).get(new URL(link).pathname)).status).toBe(410);

    const foreign = await owner.client.post(
      `${PAGE}/invitations`,
      { csrf, role: 'owner', email: '' },
      { origin: 'https://elsewhere.example' },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.html).not.toMatch(/\/invitations\/[0-9A-Za-z]{43}/);
    const badRole = await owner.client.post(`${PAGE}/invitations`, { csrf, role: 'triage', email: '' });
    expect(badRole.status).toBe(400);
    expect(badRole.html).toContain('Unknown role &quot;triage&quot;: use owner, admin or member.');
    expect(badRole.html).not.toMatch(/\/invitations\/[0-9A-Za-z]{43}/);
  });
});

describe('changing people', () => {
  it('demotes an admin, who loses the Alert channels page on their next request', async () => {
    const owner = await signedInPerson(server, 'owner');
    const admin = await signedInPerson(server, 'admin');
    expect((await admin.client.get(`${ORG}/alert-channels`)).status).toBe(200);
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: owner.client.jar,
      screenshot: 'members-role',
    });
    try {
      const { page } = checked;
      await page.getByLabel(`Role of ${admin.email}`).selectOption('member');
      await page.getByRole('button', { name: `Change the role of ${admin.email}` }).click();
      await page.waitForURL(`${server.url}${PAGE}?done=role`);
      await expect(page.getByRole('status').textContent()).resolves.toBe('Role changed: it applies from their next click.');
      expect(await page.getByLabel(`Role of ${admin.email}`).inputValue()).toBe('member');
    } finally {
      await checked.close();
    }
    expect((await admin.client.get(`${ORG}/alert-channels`)).status).toBe(403);
  });

  it('removes a person: their own signed-in client lands on sign-in at once, and they cannot sign in again', async () => {
    const owner = await signedInPerson(server, 'owner');
    const member = await signedInPerson(server, 'member');
    expect((await member.client.get(`${ORG}/issues`)).status).toBe(200);
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: owner.client.jar,
      screenshot: 'members-remove',
    });
    try {
      const { page } = checked;
      await page.getByRole('button', { name: `Remove ${member.email}` }).click();
      await page.waitForURL(`${server.url}${PAGE}?done=removed`);
      await expect(page.getByRole('status').textContent()).resolves.toBe(
        'Removed: they are signed out and cannot sign in again, and the tokens they made are revoked.',
      );
      expect(await page.content()).not.toContain(member.email);
    } finally {
      await checked.close();
    }
    const after = await member.client.get(`${ORG}/issues`);
    expect(after.status).toBe(303);
    expect(after.location).toMatch(/^\/login\?next=/);
    expect((await new FormClient(server.url).signIn(member.email, PERSON_PASSWORD)).status).toBe(401);
  });

  it('never demotes or removes the only owner, and an owner cannot remove themself', async () => {
    const owner = await signedInPerson(server, 'owner');
    const csrf = await owner.client.token(PAGE);
    const html = (await owner.client.get(PAGE)).html;
    const ids = peopleOn(html);
    const self = ids.get(owner.email)!;
    expect(self).toBeDefined();
    const removeSelf = await owner.client.post(`${PAGE}/remove`, { csrf, user: self });
    expect(removeSelf.status).toBe(400);
    expect(removeSelf.html).toContain('You cannot remove yourself: another owner can remove you.');
    // Every other owner made a member: this one is the only owner left.
    for (const [email, id] of ids) {
      if (email === owner.email) continue;
      expect((await owner.client.post(`${PAGE}/role`, { csrf, user: id, role: 'member' })).status).toBe(303);
    }
    const demoteSelf = await owner.client.post(`${PAGE}/role`, { csrf, user: self, role: 'admin' });
    expect(demoteSelf.status).toBe(409);
    expect(demoteSelf.html).toContain(`&quot;${owner.email}&quot; is the only owner: make another user an owner first.`);
    expect((await owner.client.get(PAGE)).status).toBe(200);
    // No such person: said so, nothing changed.
    expect((await owner.client.post(`${PAGE}/remove`, { csrf, user: '999999' })).status).toBe(404);
    expect((await owner.client.post(`${PAGE}/role`, { csrf, user: 'x', role: 'admin' })).status).toBe(400);
    // Ten digits beyond what an id column holds: the same 400, not the store's 500.
    for (const [path, fields] of [
      ['remove', { user: '9999999999' }],
      ['role', { user: '9999999999', role: 'admin' }],
      ['invitations/revoke', { invitation: '9999999999' }],
    ] as const) {
      const refused = await owner.client.post(`${PAGE}/${path}`, { csrf, ...fields });
      expect(refused.status, path).toBe(400);
    }
  });
});

describe('who may manage people', () => {
  it('refuses admins and members the page and every post with 403, mints them no link, and shows them no Members link', async () => {
    const owner = await signedInPerson(server, 'owner');
    const target = await signedInPerson(server, 'member');
    const ids = peopleOn((await owner.client.get(PAGE)).html);
    const ownerCsrf = await owner.client.token(PAGE);
    const pending = await owner.client.post(`${PAGE}/invitations`, { csrf: ownerCsrf, role: 'member', email: '' });
    const invitationId = /name="invitation" value="(\d+)"/.exec(pending.html)![1]!;
    // Members is in the settings navigation, for owners only.
    expect((await owner.client.get(`${ORG}/settings/agent-tokens`)).html).toContain(`href="${PAGE}"`);
    for (const role of ['admin', 'member'] as const) {
      const person = await signedInPerson(server, role);
      const page = await person.client.get(PAGE);
      expect(page.status, role).toBe(403);
      expect(page.html).toContain('this needs the owner role');
      const csrf = await person.client.token('/account');
      const invited = await person.client.post(`${PAGE}/invitations`, { csrf, role: 'owner', email: '' });
      expect(invited.status, role).toBe(403);
      expect(invited.html).not.toMatch(/\/invitations\/[0-9A-Za-z]{43}/);
      const posts = {
        role: { user: ids.get(target.email)!, role: 'owner' },
        remove: { user: ids.get(target.email)! },
        'invitations/revoke': { invitation: invitationId },
      };
      for (const [path, fields] of Object.entries(posts)) {
        expect((await person.client.post(`${PAGE}/${path}`, { csrf, ...fields })).status, `${role} ${path}`).toBe(403);
      }
      expect((await person.client.get(`${ORG}/issues`)).html).not.toContain(`href="${PAGE}"`);
      if (role === 'admin') {
        const settings = await person.client.get(`${ORG}/settings/agent-activity`);
        expect(settings.status).toBe(200);
        expect(settings.html).not.toContain(`href="${PAGE}"`);
      }
    }
    // Nothing changed: the member is still a member, the invitation still pending.
    const after = (await owner.client.get(PAGE)).html;
    expect(after).toContain(`name="invitation" value="${invitationId}"`);
    expect((await target.client.get(`${ORG}/issues`)).status).toBe(200);
    expect((await target.client.get(`${ORG}/alert-channels`)).status).toBe(403);
  });
});
