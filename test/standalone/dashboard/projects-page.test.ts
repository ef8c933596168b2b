// The Projects pages in a real browser against a real server: the list, creating a project
// (its DSN, the install guides' steps), the installation state flipping on the open page (htmx
// polling) as a real @sentry/node client sends the test event and then a real error, the DSN
// keys tab (add, disable: ingest refuses the key, enable) and the rate limit, renaming and deleting
// a project, and what a member may not do, refused at the HTTP level.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckedPage } from '../../support/browser.ts';
import { dsnStatus } from '../../support/dsn-status.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { logLines } from '../../support/log-lines.ts';
import { provision, REPO_ROOT, runProcess, type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

let server: StandaloneServer;
let browser: Browser;
const ORG = '/organizations/default';

// At info, where the server logs who deleted a project (the suites' servers log warnings only).
beforeAll(async () => ({ server, browser } = await startWithBrowser({ ERRATA_LOG_LEVEL: 'info' })));
afterAll(() => stopWithBrowser(server, browser));

/** The real SDK, as the person installing it runs it. */
async function sdk(dsn: string, kind: 'test-event' | 'error'): Promise<void> {
  const result = await runProcess(process.execPath, ['install-check.cjs', dsn, kind], {
    cwd: join(REPO_ROOT, 'test', 'clients', 'node'),
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
}

/** The status ingest answers an event sent with the DSN. */
const ingestStatus = (dsn: string) => dsnStatus(server.url, dsn);

/** Marks the loaded document; the mark survives only while the page is not reloaded. */
async function markDocument(page: Page): Promise<() => Promise<boolean>> {
  await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));
  return () => page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce === true);
}

describe('the Projects list and creating a project', () => {
  it('creates a project and shows its DSN, then the installation state flips live with a real SDK', async () => {
    await provision(server, 'Existing App');
    const owner = await signedInPerson(server, 'owner');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects`, {
      cookies: owner.client.jar,
      screenshot: 'projects',
    });
    try {
      const { page } = checked;
      const existing = page.getByRole('row', { name: /Existing App/ });
      await expect(existing.getByRole('link', { name: 'Issues of Existing App' }).getAttribute('href')).resolves.toBe(
        `${ORG}/issues?project=existing-app`,
      );
      await page.getByLabel('Name').fill('Checkout Service');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.waitForURL(`${server.url}${ORG}/projects/checkout-service?saved=created`);
      await checked.recheck('project-created');
      const dsn = (await page.locator('#dsn').textContent())!;
      expect(dsn).toMatch(new RegExp(`^http://[0-9a-f]{32}@127\\.0\\.0\\.1:${server.port}/\\d+$`));
      // The install guide's own steps, with this DSN in place.
      await expect(page.locator('.steps').textContent()).resolves.toContain(`dsn: '${dsn}'`);
      await expect(page.locator('.steps').textContent()).resolves.toContain('npm install @sentry/node');
      await page.getByRole('link', { name: 'Python' }).click();
      await expect(page.locator('.steps').textContent()).resolves.toContain(`dsn="${dsn}"`);
      await checked.recheck('project-python');

      const state = page.locator('#installation');
      expect(await state.getAttribute('data-verdict')).toBe('waiting_for_first_event');
      await expect(state.locator('h2').textContent()).resolves.toBe('Waiting for the first event');
      const sameDocument = await markDocument(page);

      await sdk(dsn, 'test-event');
      await page.locator('#installation[data-verdict="test_event_received"]').waitFor({ timeout: 30_000 });
      await expect(state.locator('h2').textContent()).resolves.toBe('Test event seen');
      expect(await state.getAttribute('hx-trigger')).toBe('every 3s');

      await sdk(dsn, 'error');
      await page.locator('#installation[data-verdict="real_event_received"]').waitFor({ timeout: 30_000 });
      await expect(state.locator('h2').textContent()).resolves.toBe('Real error seen');
      await expect(state.getByRole('link').getAttribute('href')).resolves.toMatch(
        new RegExp(`^${ORG}/issues/CHECKOUT-SERVICE-\\d+$`),
      );
      // Updated in place, never reloaded; the box that says so polls no more.
      expect(await sameDocument()).toBe(true);
      expect(await state.getAttribute('hx-trigger')).toBeNull();
      await checked.recheck('project-real-error');

      // A reload without JavaScript's help shows the same state.
      expect((await owner.client.get(`${ORG}/projects/checkout-service`)).html).toContain('data-verdict="real_event_received"');
    } finally {
      await checked.close();
    }
  });

  it('copies the DSN with its button', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects/existing-app`, {
      cookies: admin.client.jar,
      screenshot: 'project-copy',
    });
    try {
      const { page } = checked;
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      await page.getByRole('button', { name: 'Copy the DSN' }).click();
      await page.locator('button[data-copy="dsn"] .copy-label', { hasText: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await page.locator('#dsn').textContent());
    } finally {
      await checked.close();
    }
  });

  it('refuses a taken name or slug and a bad slug on the form, keeping what was typed', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects`, {
      cookies: admin.client.jar,
      colorScheme: 'dark',
      screenshot: 'projects-dark',
    });
    try {
      const { page } = checked;
      await page.getByLabel('Name').fill('Existing App');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create project' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(response.status()).toBe(409);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'A project with the slug "existing-app" already exists: choose another name or slug.',
      );
      expect(await page.getByLabel('Name').inputValue()).toBe('Existing App');
      await checked.recheck('projects-duplicate-dark');
    } finally {
      await checked.close();
    }
    const csrf = await admin.client.token(`${ORG}/projects`);
    const taken = await admin.client.post(`${ORG}/projects`, { csrf, name: 'Another', slug: 'existing-app' });
    expect(taken.status).toBe(409);
    expect(taken.html).toContain('A project with the slug &quot;existing-app&quot; already exists');
    const bad = await admin.client.post(`${ORG}/projects`, { csrf, name: 'Bad', slug: 'Bad Slug' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Invalid slug &quot;Bad Slug&quot;: use 1-50 lowercase letters');
    const unnamed = await admin.client.post(`${ORG}/projects`, { csrf, name: '!!!' });
    expect(unnamed.html).toContain('Invalid slug derived from the name (give a slug of its own)');
  });
});

describe("a project's DSN keys and rate limit", () => {
  it('adds a key, disables it (ingest refuses its DSN) and enables it again', async () => {
    await provision(server, 'Keyed App');
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects/keyed-app/keys`, {
      cookies: admin.client.jar,
      screenshot: 'project-keys',
    });
    try {
      const { page } = checked;
      await page.getByLabel("New key's label").fill('Mobile app');
      await page.getByRole('button', { name: 'Add key' }).click();
      await page.waitForURL(`${server.url}${ORG}/projects/keyed-app/keys?saved=key-added`);
      const card = page.locator('.key-card', { has: page.getByRole('heading', { name: 'Mobile app' }) });
      const dsn = (await card.locator('pre').textContent())!;
      await expect(card.locator('.badge').textContent()).resolves.toBe('Active');
      expect(await ingestStatus(dsn)).toBe(200);

      await card.getByRole('button', { name: 'Disable the key Mobile app' }).click();
      await page.waitForURL(/saved=key-disabled$/);
      await expect(card.locator('.badge').textContent()).resolves.toBe('Disabled');
      await checked.recheck('project-keys-disabled');
      expect(await ingestStatus(dsn)).toBe(403);
      // The project's other key still works.
      const first = (await page.locator('.key-card').first().locator('pre').textContent())!;
      expect(await ingestStatus(first)).toBe(200);

      await card.getByRole('button', { name: 'Enable the key Mobile app' }).click();
      await page.waitForURL(/saved=key-enabled$/);
      expect(await ingestStatus(dsn)).toBe(200);

      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('project-keys-narrow');
    } finally {
      await checked.close();
    }
  });

  it('sets the rate limit (0 refuses every event) and clears it back to the shown instance default', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects/keyed-app/keys`, {
      cookies: admin.client.jar,
      colorScheme: 'dark',
      screenshot: 'project-keys-dark',
    });
    try {
      const { page } = checked;
      const dsn = (await page.locator('.key-card').first().locator('pre').textContent())!;
      await expect(page.locator('.rate-now').textContent()).resolves.toMatch(/^120,000 events per minute: the instance default/);
      await page.getByLabel('Events per minute').fill('0');
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.waitForURL(/saved=rate-limit$/);
      await expect(page.locator('.rate-now').textContent()).resolves.toMatch(/^0 events per minute, set for this project/);
      expect(await ingestStatus(dsn)).toBe(429);

      await page.getByLabel('Events per minute').fill('ten');
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.waitForLoadState('load');
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^"ten" is not a number of events per minute/);
      await checked.recheck('project-keys-rate-refused-dark');
      // Beyond what the store keeps: the same refusal, not a 500.
      await page.getByLabel('Events per minute').fill('3,000,000,000');
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.waitForLoadState('load');
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        '"3000000000" is not a number of events per minute: type a whole number from 0 to 2,147,483,647, or leave it empty for the default.',
      );

      await page.getByLabel('Events per minute').fill('');
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.waitForURL(/saved=rate-limit-default$/);
      await expect(page.locator('.rate-now').textContent()).resolves.toMatch(/^120,000 events per minute: the instance default/);
      expect(await ingestStatus(dsn)).toBe(200);
    } finally {
      await checked.close();
    }
  });
});

describe('renaming a project', () => {
  it('renames it from its Set-up page, keeping its slug, and refuses a blank name keeping what was typed', async () => {
    await provision(server, 'Old Name');
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects/old-name`, {
      cookies: admin.client.jar,
      screenshot: 'project-rename',
    });
    try {
      const { page } = checked;
      const name = page.getByLabel('Project name');
      expect(await name.inputValue()).toBe('Old Name');
      await name.fill('Storefront');
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.waitForURL(`${server.url}${ORG}/projects/old-name?saved=renamed#name-heading`);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Storefront');
      await expect(page.locator('.notice-saved').textContent()).resolves.toBe('The project is renamed.');

      await name.fill('   ');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Rename' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(refused.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('A project needs a name of 1 to 100 characters');
      // The answer opens at the form, where the refusal is, not at the top of a long page.
      expect(new URL(page.url()).hash).toBe('#name-heading');
      await checked.recheck('project-rename-refused');
    } finally {
      await checked.close();
    }
    const list = (await admin.client.get(`${ORG}/projects`)).html;
    expect(list).toContain('Storefront');
    expect(list).not.toContain('Old Name');
  });
});

describe('deleting a project', () => {
  it('asks for the slug, deletes the project (its DSN refused, its slug free at once) and says when its data goes', async () => {
    const p = await provision(server, 'Doomed App');
    expect(await ingestStatus(p.dsn)).toBe(200);
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects/doomed-app`, {
      cookies: admin.client.jar,
      screenshot: 'project-delete-section',
    });
    try {
      const { page } = checked;
      await page.getByRole('link', { name: 'Delete project…' }).click();
      await page.waitForURL(`${server.url}${ORG}/projects/doomed-app/delete`);
      await checked.recheck('project-delete');
      await expect(page.locator('.project-delete ul').textContent()).resolves.toContain(
        'its 1 DSN key: SDKs that send to it are refused (in a cluster within 30 seconds);',
      );
      const slug = page.getByLabel("Type the project's slug, doomed-app, to confirm");
      await slug.fill('doomed');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Delete project' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(refused.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        `"doomed" is not this project's slug: type doomed-app to delete it, or Cancel.`,
      );
      expect(await slug.inputValue()).toBe('doomed');
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('project-delete-refused-narrow');
      expect(await ingestStatus(p.dsn)).toBe(200);

      await slug.fill('doomed-app');
      await page.getByRole('button', { name: 'Delete project' }).click();
      await page.waitForURL(`${server.url}${ORG}/projects?saved=deleted`);
      await expect(page.locator('.notice-saved').textContent()).resolves.toBe(
        'The project is deleted. Ingest refuses its DSN keys (in a cluster within 30 seconds), and its stored events, logs and source maps are erased within 15 minutes.',
      );
      expect(await page.getByRole('link', { name: 'Doomed App', exact: true }).count()).toBe(0);
      await checked.recheck('projects-after-delete');
    } finally {
      await checked.close();
    }
    expect(await ingestStatus(p.dsn)).toBe(403);
    // The server's log says who deleted it (by user id: no email in the log).
    const logged = logLines(server.output(), 'project deleted');
    expect(logged).toEqual([
      expect.objectContaining({
        organization: 'default',
        project: 'doomed-app',
        projectId: p.projectId,
        byUser: expect.any(Number),
      }),
    ]);
    expect((await admin.client.get(`${ORG}/projects/doomed-app`)).status).toBe(404);
    expect((await admin.client.get(`${ORG}/projects/doomed-app/delete`)).status).toBe(404);
    // The slug is free for a new project, with a DSN of its own.
    const csrf = await admin.client.token(`${ORG}/projects`);
    const again = await admin.client.post(`${ORG}/projects`, { csrf, name: 'Doomed App' });
    expect(again.location).toBe(`${ORG}/projects/doomed-app?saved=created`);
    expect((await admin.client.get(`${ORG}/projects/doomed-app`)).html).not.toContain(`${p.publicKey}@`);
  });
});

describe('the Set-up page without an active key, and addresses that name nothing', () => {
  it('says no key is active (and shows no DSN) once its only key is disabled; unknown projects and keys are 404', async () => {
    const p = await provision(server, 'Keyless');
    const admin = await signedInPerson(server, 'admin');
    const csrf = await admin.client.token(`${ORG}/projects`);
    const base = `${ORG}/projects/keyless`;
    const disabled = await admin.client.post(`${base}/keys/${p.publicKey}/active`, { csrf, active: 'false' });
    expect(disabled.location).toBe(`${base}/keys?saved=key-disabled`);
    const page = (await admin.client.get(base)).html;
    expect(page).toContain('data-verdict="no_dsn_key"');
    expect(page).toContain('No active DSN key');
    expect(page).toContain('No key of this project is active, so it has no DSN to use.');
    expect(page).not.toContain(`${p.publicKey}@`);
    expect(await ingestStatus(p.dsn)).toBe(403);

    expect((await admin.client.get(`${ORG}/projects/nope`)).status).toBe(404);
    expect((await admin.client.get(`${ORG}/projects/nope/keys`)).status).toBe(404);
    // A key of another project is not this project's to change.
    const other = await provision(server, 'Other Keys');
    expect((await admin.client.post(`${base}/keys/${other.publicKey}/active`, { csrf, active: 'false' })).status).toBe(404);
    expect(await ingestStatus(other.dsn)).toBe(200);
    const bad = await admin.client.post(`${base}/keys/${p.publicKey}/active`, { csrf, active: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('&quot;active&quot; must be true or false');
    // The fragment the page polls is for htmx; a plain GET goes to the page.
    expect((await admin.client.get(`${base}/installation`)).location).toBe(base);
  });
});

describe('a member', () => {
  it('sees projects and their installation state, without the controls, and is refused every change with 403', async () => {
    const p = await provision(server, 'Member View');
    const member = await signedInPerson(server, 'member');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects`, {
      cookies: member.client.jar,
      screenshot: 'projects-member',
    });
    try {
      const { page } = checked;
      expect(await page.getByRole('button', { name: 'Create project' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Member View', exact: true }).click();
      await page.waitForURL(`${server.url}${ORG}/projects/member-view`);
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('project-member-narrow');
      expect(await page.getByRole('link', { name: 'DSN keys' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Delete project…' }).count()).toBe(0);
      expect(await page.getByLabel('Project name').count()).toBe(0);
      expect(await page.locator('#installation').getAttribute('data-verdict')).toBe('waiting_for_first_event');
      expect(await page.content()).not.toContain(p.publicKey);
    } finally {
      await checked.close();
    }
    const csrf = await member.client.token('/account');
    const base = `${ORG}/projects/member-view`;
    const refused = [
      await member.client.get(`${base}/keys`),
      await member.client.post(`${ORG}/projects`, { csrf, name: 'Not Allowed' }),
      await member.client.post(`${base}/keys`, { csrf, label: 'Sneaky' }),
      await member.client.post(`${base}/keys/${p.publicKey}/active`, { csrf, active: 'false' }),
      await member.client.post(`${base}/rate-limit`, { csrf, eventsPerMinute: '0' }),
      await member.client.post(`${base}/name`, { csrf, name: 'Renamed' }),
      await member.client.get(`${base}/delete`),
      await member.client.post(`${base}/delete`, { csrf, slug: 'member-view' }),
    ];
    expect(refused.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403, 403, 403, 403]);
    expect(refused[1]!.html).toContain('this needs the owner or admin role; you are member');
    expect(await ingestStatus(p.dsn)).toBe(200);
    const projects = (await member.client.get(`${ORG}/projects`)).html;
    expect(projects).not.toContain('Not Allowed');
  });
});
