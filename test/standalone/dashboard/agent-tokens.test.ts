// The Agent tokens page in a real browser against a real server: the owner mints a token and
// sees its plaintext once, beside the same client configuration `errata createtoken` prints;
// the real MCP client works with it (and its use shows on the list); no later page holds the
// plaintext; revoking it from the page refuses the client's next call; a project-scoped token
// shows its project; admins and members are refused at the HTTP level.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpClientConfiguration } from '../../../services/core/provisioning/mcp-client-configuration.ts';
import { linesOf, openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { connectAgent } from '../../support/mcp-client.ts';
import { provision, runCli, runCliJson, type StandaloneServer } from '../../support/standalone-server.ts';
import { startWithBrowser, stopWithBrowser } from '../../support/server-with-browser.ts';

let server: StandaloneServer;
let browser: Browser;
const ORG = '/organizations/default';
const PAGE = `${ORG}/settings/agent-tokens`;

beforeAll(async () => ({ server, browser } = await startWithBrowser()));
afterAll(() => stopWithBrowser(server, browser));

/** Every same-site link and form address on a page, without its query. */
function addressesOn(html: string): string[] {
  const found = [...html.matchAll(/(?:href|action)="(\/[^"?#]*)/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
  return [...new Set(found)];
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('minting and revoking an agent token on the page', () => {
  let plaintext: string;

  it('shows the plaintext once, with the CLI configuration, and the token works with a real MCP client', async () => {
    const owner = await signedInPerson(server, 'owner');
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: owner.client.jar,
      screenshot: 'agent-tokens',
    });
    try {
      const { page } = checked;
      await page.getByLabel('Name (optional)').fill('laptop');
      await page.getByLabel('Role').selectOption('triage');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create token' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(response.status()).toBe(201);
      await checked.recheck('agent-token-created');

      const exportLine = (await page.locator('#token-export').textContent())!;
      plaintext = /^export ERRATA_TOKEN=(errata_agent_\S+)$/.exec(exportLine)![1]!;
      const expected = mcpClientConfiguration(server.url, plaintext);
      expect(exportLine).toBe(expected.export);
      await expect(page.locator('#token-command').textContent()).resolves.toBe(expected.command);
      await expect(page.locator('#token-mcp-json').textContent()).resolves.toBe(expected.mcpJson);
      expect(expected.mcpJson).toContain(`"url": "${server.url}/mcp"`);
      // Once: in the export line, nowhere else in the page (not in the command, the .mcp.json or an attribute).
      expect(occurrences(await page.content(), plaintext)).toBe(1);
      await expect(page.getByRole('row', { name: /laptop/ }).textContent()).resolves.toContain('Never');
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      await page.getByRole('button', { name: 'Copy the export line with the token' }).click();
      await page.locator('button[data-copy="token-export"] .copy-label', { hasText: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected.export);
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('agent-token-created-narrow');
      // Nothing widens the page past the screen (the token table scrolls inside its box).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
      await expect(linesOf(page.locator('td.token-name', { hasText: 'laptop' }))).resolves.toBe(1);
      await page.setViewportSize({ width: 1280, height: 720 });

      const agent = await connectAgent(server.url, plaintext);
      try {
        const whoami = await agent.call('whoami');
        expect(whoami.isError).toBe(false);
        expect(whoami.structured).toMatchObject({ tokenName: 'laptop', role: 'triage', scope: { type: 'organization' } });
      } finally {
        await agent.close();
      }

      // The CLI tells the same last use.
      const listed = await runCliJson<{ tokens: Array<{ name: string; lastUsedAt: string | null }> }>(['listtokens'], server.env);
      expect(listed.tokens.find((t) => t.name === 'laptop')?.lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect((await runCli(['listtokens'], server.env)).stdout).toMatch(
        /^laptop {2}role=triage {2}scope=organization {2}created=\S+ {2}last-used=\d{4}-/m,
      );

      // Reloaded, the list has it with its last use, and no plaintext.
      await page.goto(`${server.url}${PAGE}`);
      await checked.recheck('agent-tokens-used');
      expect(await page.content()).not.toContain(plaintext);
      const row = page.getByRole('row', { name: /laptop/ });
      await expect(row.locator('td').nth(4).textContent()).resolves.toMatch(/^(just now|\d+ s ago)$/);
    } finally {
      await checked.close();
    }

    // No page after the first holds it: the list and every page and form address it names.
    const list = await owner.client.get(PAGE);
    expect(list.status).toBe(200);
    expect(list.html).toContain('laptop');
    expect(list.html).not.toContain(plaintext);
    const addresses = addressesOn(list.html).filter((a) => !a.startsWith('/assets/'));
    expect(addresses).toEqual(expect.arrayContaining([PAGE, `${PAGE}/revoke`, `${ORG}/issues`, `${ORG}/projects`, '/account']));
    for (const address of addresses) {
      const answer = await owner.client.get(address);
      expect(answer.html, address).not.toContain(plaintext);
    }
  });

  it('revokes it from the page, and the MCP client is refused on its next call', async () => {
    const agent = await connectAgent(server.url, plaintext);
    const owner = await signedInPerson(server, 'owner');
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: owner.client.jar,
      colorScheme: 'dark',
      screenshot: 'agent-tokens-dark',
    });
    try {
      const { page } = checked;
      expect((await agent.call('whoami')).isError).toBe(false);
      await page.getByRole('button', { name: 'Revoke the token laptop' }).click();
      await page.waitForURL(`${server.url}${PAGE}?revoked=1`);
      await expect(page.getByRole('status').textContent()).resolves.toBe('Revoked: its next call is refused.');
      await expect(page.getByRole('region', { name: 'Revoked tokens' }).textContent()).resolves.toContain('laptop');
      await checked.recheck('agent-tokens-revoked-dark');
      // The connected client's next call, then a new connection: both refused.
      await expect(agent.call('whoami')).rejects.toThrow(/401|unknown or revoked/i);
      await expect(connectAgent(server.url, plaintext)).rejects.toThrow(/401|unknown or revoked/i);
    } finally {
      await agent.close().catch(() => undefined);
      await checked.close();
    }
  });

  it('mints a project-scoped token, shown with its project, and keeps what was typed when refused', async () => {
    await provision(server, 'Scoped App');
    const owner = await signedInPerson(server, 'owner');
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: owner.client.jar,
      colorScheme: 'dark',
      screenshot: 'agent-tokens-scoped-dark',
    });
    let scopedPlaintext: string;
    try {
      const { page } = checked;
      await page.getByLabel('Name (optional)').fill('ci-scoped');
      await page.getByLabel('Role').selectOption('read');
      await page.getByLabel('Scope', { exact: true }).selectOption('scoped-app');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.waitForLoadState('load');
      await checked.recheck('agent-token-scoped-created-dark');
      scopedPlaintext = (await page.locator('#token-export').textContent())!.split('=')[1]!;
      const row = page.getByRole('row', { name: /ci-scoped/ });
      await expect(row.locator('td').nth(1).textContent()).resolves.toBe('read');
      await expect(row.locator('td').nth(2).textContent()).resolves.toBe('scoped-app');
      // Who made it: their removal, or demotion from owner, revokes it.
      await expect(row.locator('.token-creator').textContent()).resolves.toBe(` by ${owner.email}`);

      // The same name again: refused with the reason, the form keeping what was typed.
      await page.getByLabel('Name (optional)').fill('ci-scoped');
      await page.getByLabel('Scope', { exact: true }).selectOption('scoped-app');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create token' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(response.status()).toBe(409);
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'A live token named "ci-scoped" exists: choose another name, or revoke that one first.',
      );
      expect(await page.getByLabel('Name (optional)').inputValue()).toBe('ci-scoped');
      expect(await page.getByLabel('Scope', { exact: true }).inputValue()).toBe('scoped-app');
      await checked.recheck('agent-token-refused-dark');
    } finally {
      await checked.close();
    }
    const agent = await connectAgent(server.url, scopedPlaintext);
    try {
      expect((await agent.call('whoami')).structured.scope).toEqual({ type: 'project', project: 'scoped-app' });
    } finally {
      await agent.close();
    }

    const csrf = await owner.client.token(PAGE);
    const badRole = await owner.client.post(PAGE, { csrf, name: 'x', role: 'owner', project: '' });
    expect(badRole.status).toBe(400);
    expect(badRole.html).toContain('Unknown role &quot;owner&quot;: use read, triage or admin');
    expect((await owner.client.post(`${PAGE}/revoke`, { csrf, name: 'no-such-token' })).status).toBe(404);
    // The one answer holding a plaintext is kept by no cache.
    const minted = await owner.client.post(PAGE, { csrf, name: 'http-minted', role: 'read', project: '' });
    expect(minted.status).toBe(201);
    expect(minted.html).toContain('export ERRATA_TOKEN=errata_agent_');
    expect(minted.headers.get('cache-control')).toBe('no-store');
    // Posts from another site are refused before anything is minted or revoked.
    const foreign = { origin: 'https://elsewhere.example' };
    expect((await owner.client.post(PAGE, { csrf, name: 'cross-site', role: 'admin', project: '' }, foreign)).status).toBe(403);
    expect((await owner.client.post(`${PAGE}/revoke`, { csrf, name: 'http-minted' }, foreign)).status).toBe(403);
    expect((await owner.client.post(PAGE, { csrf: 'not-the-token', name: 'bad-csrf', role: 'admin', project: '' })).status).toBe(
      403,
    );
    const after = (await owner.client.get(PAGE)).html;
    expect(after).not.toContain('cross-site');
    expect(after).not.toContain('bad-csrf');
    // Still live: its Revoke form names it.
    expect(after).toContain('<input type="hidden" name="name" value="http-minted"/>');
  });
});

describe("a token's messages left this minute", () => {
  it('shows on its row what whoami reports: messages left of the limit, and when the minute resets', async () => {
    const p = await provision(server, 'Rate Shown');
    const agent = await connectAgent(server.url, p.token);
    try {
      const me = (await agent.call('whoami')).structured!;
      const { limit, remaining, resetInSeconds } = me.rateLimit as { limit: number; remaining: number; resetInSeconds: number };
      expect(remaining).toBeLessThan(limit);
      const owner = await signedInPerson(server, 'owner');
      const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
        cookies: owner.client.jar,
        screenshot: 'agent-tokens-rate',
      });
      try {
        const row = checked.page
          .getByRole('row')
          .filter({ has: checked.page.locator('td.token-name', { hasText: new RegExp(`^${me.tokenName}$`) }) });
        await expect(row.locator('.token-rate-left').textContent()).resolves.toBe(`${remaining} of ${limit}`);
        const reset = Number(/resets in (\d+) s/.exec((await row.locator('.token-rate-reset').textContent())!)![1]);
        expect(reset).toBeLessThanOrEqual(resetInSeconds);
        expect(reset).toBeGreaterThanOrEqual(0);
      } finally {
        await checked.close();
      }
    } finally {
      await agent.close();
    }
  });
});

describe('who may manage agent tokens', () => {
  it('refuses admins and members the page and every post with 403; Settings leads an admin to Agent activity, a member nowhere', async () => {
    const p = await provision(server, 'Role Check');
    const owner = await signedInPerson(server, 'owner');
    expect((await owner.client.get(`${ORG}/issues`)).html).toContain(`href="${ORG}/settings"`);
    for (const role of ['admin', 'member'] as const) {
      const person = await signedInPerson(server, role);
      const page = await person.client.get(PAGE);
      expect(page.status, role).toBe(403);
      expect(page.html).toContain('this needs the owner role');
      const settings = await person.client.get(`${ORG}/settings`);
      if (role === 'admin') {
        expect(settings.status).toBe(303);
        expect(settings.location).toBe(`${ORG}/settings/agent-activity`);
      } else {
        expect(settings.status).toBe(403);
      }
      const csrf = await person.client.token('/account');
      const minted = await person.client.post(PAGE, { csrf, name: `by-${role}`, role: 'admin', project: '' });
      expect(minted.status, role).toBe(403);
      expect(minted.html).not.toContain('errata_agent_');
      const revoked = await person.client.post(`${PAGE}/revoke`, { csrf, name: `admin-${p.projectSlug}` });
      expect(revoked.status, role).toBe(403);
      const issues = (await person.client.get(`${ORG}/issues`)).html;
      if (role === 'admin') expect(issues).toContain(`href="${ORG}/settings"`);
      else expect(issues).not.toContain(`href="${ORG}/settings"`);
    }
    // Nothing was minted or revoked: the provisioned token still works, and no by-* token exists.
    const agent = await connectAgent(server.url, p.token);
    await agent.close();
    const list = await owner.client.get(PAGE);
    expect(list.html).not.toContain('by-admin');
    expect(list.html).not.toContain('by-member');
  });
});
