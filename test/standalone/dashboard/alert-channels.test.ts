// The Alert channels pages in a real browser against a real server: creating a channel, Reveal,
// Rotate and Send test arriving at a real HTTPS receiver on loopback signed with the new secret
// (checked with the shipped verifier and with the snippet the page offers), the deliveries log
// with its attempts, the settings form with its errors; and at the HTTP level the address every
// alert about a channel carries, the role matrix (a member is refused), another organization's
// channel, and the secret never in a GET answer.
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { verifyErrataWebhook } from '../../../examples/webhook-receiver/verify-errata-webhook.ts';
import { dashboardUrls } from '../../../services/core/alerts/alert-payload.ts';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { addOrganization } from '../../support/embedded-admin.ts';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../../support/https-receiver.ts';
import {
  eventually,
  runCliJson,
  startServer,
  stopAndRemove,
  initializedDataDir,
  type StandaloneServer,
} from '../../support/standalone-server.ts';

let receiver: HttpsReceiver;
let server: StandaloneServer;
let browser: Browser;
const ORG = '/organizations/default';

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  const dataDir = await initializedDataDir();
  // A second organization, whose channel the first one's pages must not find.
  await runCliJson(['listprojects'], { ...process.env, ERRATA_DATA_DIR: dataDir });
  await addOrganization(dataDir, 'other-org');
  const caFile = join(dataDir, 'receiver-ca.pem');
  await writeFile(caFile, receiver.caPem);
  server = await startServer({
    dataDir,
    env: { ERRATA_WEBHOOK_ALLOW_HOSTS: 'localhost', ERRATA_WEBHOOK_CA_FILE: caFile, ERRATA_WEBHOOK_RETRY_BASE_MS: '1000' },
  });
  browser = await launchChromium(inject('chromium'));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) await stopAndRemove(server);
  await receiver?.close();
});

/** The requests that arrived since `from`, once there are `count` of them. */
function received(from: number, count: number): Promise<ReceivedRequest[]> {
  return eventually(
    async () => (receiver.received.length - from >= count ? receiver.received.slice(from) : undefined),
    `${count} webhook request(s)`,
  );
}

/** Marks the loaded document; the mark survives only while the page is not reloaded. */
async function markDocument(page: Page): Promise<() => Promise<boolean>> {
  await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));
  return () => page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce === true);
}

const signature = (request: ReceivedRequest) => String(request.headers['x-errata-signature']);

/** Runs the page's verification snippet, as a receiver would, on a request the receiver got. */
function snippetVerifies(snippet: string, secret: string, request: ReceivedRequest): boolean {
  return runInNewContext(`${snippet}\nverifyErrataWebhook(secret, header, rawBody)`, {
    require: createRequire(import.meta.url),
    Buffer,
    secret,
    header: request.headers['x-errata-signature'],
    rawBody: request.rawBody,
  }) as boolean;
}

/** A channel made through the CLI (the same operation the page calls), in `organization`. */
async function cliChannel(name: string, organization = 'default'): Promise<{ id: number; secret: string }> {
  const created = await runCliJson<{ channel: { id: number }; signingSecret: string }>(
    ['createchannel', '--name', name, '--url', receiver.url, '--organization', organization],
    server.env,
  );
  return { id: created.channel.id, secret: created.signingSecret };
}

describe("an alert channel's pages for an admin", () => {
  it('creates a channel, reveals and rotates its secret, and a Send test arrives signed with the new one', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/alert-channels`, {
      cookies: admin.client.jar,
      screenshot: 'alert-channels',
    });
    try {
      const { page } = checked;
      await expect(page.getByRole('link', { name: 'Alert channels' }).getAttribute('aria-current')).resolves.toBe('page');
      await page.getByLabel('Name').fill('On-call <pager>');
      await page.getByLabel('Receiver URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.waitForURL(/\/alert-channels\/\d+\?saved=created$/);
      const id = Number(/alert-channels\/(\d+)/.exec(page.url())![1]);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('On-call <pager>');
      await expect(page.locator('.empty-state').textContent()).resolves.toBe('No deliveries yet. Send test sends one now.');
      await checked.recheck('alert-channel-created');

      await page.getByRole('button', { name: 'Reveal' }).click();
      await page.waitForURL(`${server.url}${ORG}/alert-channels/${id}/reveal`);
      const old = (await page.locator('#signing-secret').textContent())!;
      expect(old).toMatch(/^[0-9a-f]{64}$/);
      await checked.recheck('alert-channel-revealed');

      await page.getByRole('button', { name: 'Rotate' }).click();
      await page.waitForURL(`${server.url}${ORG}/alert-channels/${id}/rotate`);
      const fresh = (await page.locator('#signing-secret').textContent())!;
      expect(fresh).toMatch(/^[0-9a-f]{64}$/);
      expect(fresh).not.toBe(old);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('The secret is rotated');

      // The receiver leaves the test unanswered (10 s): a test is tried once, so the page shows it
      // pending, then failed, following it by itself.
      receiver.script.push('hang');
      const from = receiver.received.length;
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.waitForURL(`${server.url}${ORG}/alert-channels/${id}?saved=test`);
      const sameDocument = await markDocument(page);
      const [request] = await received(from, 1);
      expect(verifyErrataWebhook({ secret: fresh, header: signature(request!), rawBody: request!.rawBody })).toMatchObject({
        ok: true,
      });
      expect(verifyErrataWebhook({ secret: old, header: signature(request!), rawBody: request!.rawBody })).toMatchObject({
        ok: false,
      });
      expect(JSON.parse(request!.rawBody.toString('utf8'))).toMatchObject({
        kind: 'test',
        title: 'Test alert from Errata for channel On-call <pager>',
        url: server.url,
      });

      // The snippet the page offers, run as a receiver runs it: true with the new secret only.
      const snippet = (await page.locator('#verify-snippet').textContent())!;
      expect(snippetVerifies(snippet, fresh, request!)).toBe(true);
      expect(snippetVerifies(snippet, old, request!)).toBe(false);

      const row = page.locator('#deliveries tbody tr').first();
      await row.locator('.delivery-status', { hasText: 'Failed' }).waitFor({ timeout: 30_000 });
      expect(await sameDocument()).toBe(true);
      await expect(row.locator('code').textContent()).resolves.toBe('test');
      const failed = await row.locator('.attempt').allTextContents();
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatch(/no answer · \d+ ms · failedno answer within 10 s$/);

      // Sent again, the receiver answering: the new test is delivered, and the log follows it too.
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.waitForURL(`${server.url}${ORG}/alert-channels/${id}?saved=test`);
      const resent = await markDocument(page);
      await received(from, 2);
      const newest = page.locator('#deliveries tbody tr').first();
      await newest.locator('.delivery-status', { hasText: 'Delivered' }).waitFor({ timeout: 30_000 });
      expect(await resent()).toBe(true);
      const attempts = await newest.locator('.attempt').allTextContents();
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatch(/HTTP 200 · \d+ ms · delivered$/);
      expect(await page.locator('#deliveries').getAttribute('hx-trigger')).toBeNull();
      await checked.recheck('alert-channel-delivered');

      await page.getByRole('link', { name: 'Alert channels' }).first().click();
      await page.waitForURL(`${server.url}${ORG}/alert-channels`);
      await expect(page.getByRole('link', { name: 'On-call <pager>' }).getAttribute('href')).resolves.toBe(
        `${ORG}/alert-channels/${id}`,
      );
      await checked.recheck('alert-channels-list');
    } finally {
      await checked.close();
    }
  });

  it('changes the name, URL and daily digest, and says what is wrong with a bad one (dark)', async () => {
    const { id } = await cliChannel('Digest');
    const admin = await signedInPerson(server, 'admin');
    const path = `${ORG}/alert-channels/${id}`;
    const checked = await openCheckedPage(browser, `${server.url}${path}`, {
      cookies: admin.client.jar,
      colorScheme: 'dark',
      screenshot: 'alert-channel-dark',
    });
    try {
      const { page } = checked;
      await page.getByLabel('Name').fill('Morning digest');
      await page.getByLabel('Daily digest').selectOption('9');
      await page.getByLabel('Time zone').fill('Europe/Berlin');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`${server.url}${path}?saved=saved`);
      await expect(page.locator('.facts').textContent()).resolves.toContain('Every day at 09:00 (Europe/Berlin)');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Morning digest');

      await page.getByLabel('Receiver URL').fill('http://hooks.example.com/errata');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Save' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(response.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'The URL must start with https:// (alerts are only sent over TLS)',
      );
      expect(await page.getByLabel('Receiver URL').inputValue()).toBe('http://hooks.example.com/errata');
      await checked.recheck('alert-channel-refused-dark');
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('alert-channel-narrow-dark');
    } finally {
      await checked.close();
    }

    const csrf = await admin.client.token(path);
    const post = (fields: Record<string, string>) =>
      admin.client.post(path, { csrf, name: 'Morning digest', url: receiver.url, hour: '9', timeZone: 'UTC', ...fields });
    const zone = await post({ timeZone: 'Mars/Olympus' });
    expect(zone.status).toBe(400);
    expect(zone.html).toContain('The time zone must be an IANA time zone such as &quot;UTC&quot; or &quot;Europe/Berlin&quot;');
    const unnamed = await post({ name: '  ' });
    expect(unnamed.html).toContain('The name must not be empty');
    const loopback = await post({ url: 'https://127.0.0.1/hooks' });
    expect(loopback.status).toBe(400);
    expect(loopback.html).toMatch(/The URL was refused: its host .* is a private, loopback or link-local address/);
    const off = await post({ hour: '' });
    expect(off.status).toBe(303);
    expect((await admin.client.get(path)).html).toMatch(/<dt>Daily digest<\/dt><dd>Off<\/dd>/);

    const created = await admin.client.post(`${ORG}/alert-channels`, { csrf, name: 'Plain', url: 'hooks.example.com/errata' });
    expect(created.status).toBe(400);
    expect(created.html).toContain('The URL must be an absolute URL, e.g. https://hooks.example.com/errata');
  });
});

describe('alert channels at the HTTP level', () => {
  it("opens the page an alert's url names, and refuses an unknown id and another organization's channel", async () => {
    const { id } = await cliChannel('Linked');
    const { id: foreign } = await cliChannel('Theirs', 'other-org');
    const owner = await signedInPerson(server, 'owner');
    const url = new URL(dashboardUrls.channel(server.url, 'default', id));
    const page = await owner.client.get(url.pathname);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Linked</h1>');
    expect((await owner.client.get(`${ORG}/alert-channels/${foreign}`)).status).toBe(404);
    expect((await owner.client.get(`/organizations/other-org/alert-channels/${foreign}`)).status).toBe(200);
    expect((await owner.client.get(`${ORG}/alert-channels/99999999`)).status).toBe(404);
    expect((await owner.client.get(`${ORG}/alert-channels/abc`)).status).toBe(404);
    const csrf = await owner.client.token(`${ORG}/alert-channels`);
    expect((await owner.client.post(`${ORG}/alert-channels/${foreign}/reveal`, { csrf })).status).toBe(404);
  });

  it('refuses a member every page and form, and hides the navigation entry', async () => {
    const { id } = await cliChannel('Members may not');
    const member = await signedInPerson(server, 'member');
    for (const path of [`${ORG}/alert-channels`, `${ORG}/alert-channels/${id}`, `${ORG}/alert-channels/${id}/deliveries`]) {
      const answer = await member.client.get(path);
      expect(answer.status).toBe(403);
      expect(answer.html).toContain('this needs the owner or admin role; you are member');
    }
    // The session's token, from the meta element htmx reads it from: the member's pages have no form that posts.
    const issues = await member.client.get(`${ORG}/issues`);
    expect(issues.html).not.toContain('Alert channels');
    const csrf = /name="errata-csrf" content="([^"]+)"/.exec(issues.html)![1]!;
    for (const [path, fields] of [
      [`${ORG}/alert-channels`, { name: 'x', url: receiver.url }],
      [`${ORG}/alert-channels/${id}`, { name: 'x', url: receiver.url, hour: '', timeZone: '' }],
      [`${ORG}/alert-channels/${id}/reveal`, {}],
      [`${ORG}/alert-channels/${id}/rotate`, {}],
      [`${ORG}/alert-channels/${id}/test`, {}],
    ] as const) {
      const answer = await member.client.post(path, { csrf, ...fields });
      expect(answer.status).toBe(403);
      expect(answer.html).not.toMatch(/[0-9a-f]{64}/);
    }
  });

  it('shows the secret in the answer to Reveal and Rotate only, never in a GET', async () => {
    const { id, secret } = await cliChannel('Secretive');
    const admin = await signedInPerson(server, 'admin');
    const path = `${ORG}/alert-channels/${id}`;
    const csrf = await admin.client.token(path);
    const revealed = await admin.client.post(`${path}/reveal`, { csrf });
    expect(revealed.status).toBe(200);
    expect(revealed.headers.get('cache-control')).toBe('no-store');
    expect(revealed.html).toContain(secret);
    const rotated = await admin.client.post(`${path}/rotate`, { csrf });
    const fresh = /<code>([0-9a-f]{64})<\/code>/.exec(rotated.html)![1]!;
    expect(fresh).not.toBe(secret);
    for (const get of [path, `${path}?saved=created`, `${ORG}/alert-channels`]) {
      const answer = await admin.client.get(get);
      expect(answer.status).toBe(200);
      expect(answer.html).not.toContain(secret);
      expect(answer.html).not.toContain(fresh);
    }
    // The log's fragment is for htmx; a plain GET of it goes to the page.
    const fragment = await admin.client.get(`${path}/deliveries`);
    expect(fragment.status).toBe(303);
    expect(fragment.location).toBe(path);
    // The secret is a POST's answer: a GET of its address is no way to it.
    expect((await admin.client.get(`${path}/reveal`)).status).toBe(405);
  });
});
