// A project's Alert rules pages in a real browser against a real server: the empty state, a rule
// made through clicks and typing, one of every other trigger through the form's POST, editing and
// disabling, Send test arriving at a real HTTPS receiver and showing in the channel's deliveries
// log, a real @sentry/node event making a new-issue rule fire (and the list saying when), each
// validation message, Delete; and at the HTTP level the role matrix (a member is refused every
// page and form) and another organization's project, rule and channel never found or accepted.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { verifyErrataWebhook } from '../../../examples/webhook-receiver/verify-errata-webhook.ts';
import { dashboardUrls } from '../../../services/core/alerts/alert-payload.ts';
import { launchChromium, openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { addOrganization } from '../../support/embedded-admin.ts';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../../support/https-receiver.ts';
import {
  eventually,
  REPO_ROOT,
  runCliJson,
  runProcess,
  startServer,
  stopAndRemove,
  initializedDataDir,
  type StandaloneServer,
} from '../../support/standalone-server.ts';

let receiver: HttpsReceiver;
let server: StandaloneServer;
let browser: Browser;
const ORG = '/organizations/default';

interface RuleJson {
  id: number;
  name: string;
  trigger: string;
  channelIds: number[];
  environment: string | null;
  minLevel: string | null;
  threshold: number | null;
  windowMinutes: number | null;
  milestones: number[] | null;
  enabled: boolean;
  lastFiredAt: string | null;
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  const dataDir = await initializedDataDir();
  // A second organization, whose project and channel the first one's pages must not find.
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

const cli = <T>(args: string[]) => runCliJson<T>(args, server.env);

async function project(name: string, organization = 'default'): Promise<{ slug: string; dsn: string }> {
  const created = await cli<{ project: { slug: string }; dsn: string }>([
    'createproject',
    '--name',
    name,
    '--organization',
    organization,
  ]);
  return { slug: created.project.slug, dsn: created.dsn };
}

/** A channel made through the CLI, sending to the receiver with `?channel=<tag>` so its requests can be told apart. */
async function channel(name: string, tag: string, organization = 'default'): Promise<{ id: number; secret: string }> {
  const created = await cli<{ channel: { id: number }; signingSecret: string }>([
    'createchannel',
    '--name',
    name,
    '--url',
    `${receiver.url}?channel=${tag}`,
    '--organization',
    organization,
  ]);
  return { id: created.channel.id, secret: created.signingSecret };
}

const rulesOf = async (slug: string) =>
  (await cli<{ rules: RuleJson[] }>(['listrules', '--project', slug, '--organization', 'default'])).rules;

/** The requests to the channel tagged `tag`, once there are `count` of them. */
function receivedAt(tag: string, count: number): Promise<ReceivedRequest[]> {
  return eventually(async () => {
    const mine = receiver.received.filter((r) => r.url.endsWith(`?channel=${tag}`));
    return mine.length >= count ? mine : undefined;
  }, `${count} webhook request(s) to ${tag}`);
}

/** A rule form's fields, with one `channel` pair per channel picked. */
function ruleForm(csrf: string, fields: Record<string, string>, channels: number[]): Array<[string, string]> {
  return [['csrf', csrf], ...Object.entries(fields), ...channels.map((id): [string, string] => ['channel', String(id)])];
}

describe("a project's alert rules for an admin", () => {
  let shop: { slug: string; dsn: string };
  let oncall: { id: number; secret: string };
  let rulesPath: string;

  beforeAll(async () => {
    shop = await project('Shop');
    rulesPath = `${ORG}/projects/${shop.slug}/alert-rules`;
  });

  it('shows an empty state leading to channels, then makes a rule through clicks and typing', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${ORG}/projects/${shop.slug}`, {
      cookies: admin.client.jar,
      screenshot: 'alert-rules-project-link',
    });
    try {
      const { page } = checked;
      await page.getByRole('link', { name: 'Alert rules' }).click();
      await page.waitForURL(`${server.url}${rulesPath}`);
      const empty = (await page.locator('.empty-state').textContent())!;
      expect(empty).toContain('No alert rules for Shop yet. A rule watches this project');
      expect(empty).toContain('this organization has none yet');
      await expect(page.getByRole('link', { name: 'create an alert channel' }).getAttribute('href')).resolves.toBe(
        `${ORG}/alert-channels`,
      );
      await checked.recheck('alert-rules-empty');

      oncall = await channel('On-call <pager>', 'oncall');
      await page.reload();
      expect(await page.locator('.empty-state').textContent()).not.toContain('has none yet');
      await page.getByRole('link', { name: 'New rule' }).click();
      await page.waitForURL(`${server.url}${rulesPath}/new`);
      await page.getByLabel('Name').fill('Checkout spike');
      await page.getByLabel('An issue is frequent').check();
      // Only the chosen trigger's settings show.
      expect(await page.getByLabel('Users, more than').isVisible()).toBe(false);
      await page.getByLabel('Events, more than').fill('100');
      await page.getByLabel('Within minutes', { exact: true }).fill('5');
      await page.getByLabel('Environment').fill('production');
      await page.getByLabel('Level').selectOption('error');
      // The organization's only channel is picked already.
      expect(await page.getByLabel('On-call <pager>').isChecked()).toBe(true);
      await checked.recheck('alert-rule-new');
      await page.getByRole('button', { name: 'Create rule' }).click();
      await page.waitForURL(/\/alert-rules\/\d+\?saved=created$/);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Checkout spike');
      const facts = (await page.locator('.facts').textContent())!;
      expect(facts).toContain('More than 100 events in 5 minutes');
      expect(facts).toContain('Environment production, error or worse');
      expect(facts).toContain('Never');

      await page.getByRole('link', { name: 'Alert rules' }).last().click();
      await page.waitForURL(`${server.url}${rulesPath}`);
      const row = await page.locator('tbody tr').first().locator('td').allTextContents();
      expect(row).toEqual([
        'Checkout spike',
        'More than 100 events in 5 minutes',
        'Environment production, error or worse',
        'On-call <pager>',
        'Never',
        'Enabled',
      ]);
      await checked.recheck('alert-rules-list');
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('alert-rules-list-narrow');
    } finally {
      await checked.close();
    }
    const [stored] = await rulesOf(shop.slug);
    expect(stored).toMatchObject({
      name: 'Checkout spike',
      trigger: 'frequent',
      threshold: 100,
      windowMinutes: 5,
      environment: 'production',
      minLevel: 'error',
      channelIds: [oncall.id],
      enabled: true,
      lastFiredAt: null,
    });
  });

  it('makes a rule of every other trigger through the form, and lists each in words', async () => {
    const admin = await signedInPerson(server, 'admin');
    const csrf = await admin.client.token(`${rulesPath}/new`);
    const made: Array<[Record<string, string>, string, Partial<RuleJson>]> = [
      [{ name: 'Fresh', trigger: 'new_issue' }, 'A new issue', { trigger: 'new_issue', threshold: null }],
      [{ name: 'Back again', trigger: 'regression', minLevel: 'fatal' }, 'An issue regresses', { minLevel: 'fatal' }],
      [
        // Another trigger's settings in the form are ignored: only the chosen one's are read.
        {
          name: 'Crowd',
          trigger: 'many_users',
          usersThreshold: '25',
          usersWindow: '60',
          frequentThreshold: '7',
          milestones: '9',
        },
        'More than 25 users affected in 60 minutes',
        { threshold: 25, windowMinutes: 60, milestones: null },
      ],
      [{ name: 'Crowd ever', trigger: 'many_users', usersThreshold: '3' }, 'More than 3 users affected', { windowMinutes: null }],
      [
        { name: 'Counts', trigger: 'milestone', milestones: '50, 5 500' },
        'An issue reaches 5, 50, 500 events',
        { milestones: [5, 50, 500] },
      ],
      [{ name: 'Defaults', trigger: 'milestone' }, 'An issue reaches 10, 100, 1,000… events', { milestones: null }],
      [{ name: 'Everything', trigger: 'every_occurrence', environment: 'canary' }, 'Every event', { environment: 'canary' }],
      [{ name: 'Shipped', trigger: 'new_release' }, 'A new release', { trigger: 'new_release' }],
    ];
    for (const [fields, words, stored] of made) {
      const answer = await admin.client.post(rulesPath, ruleForm(csrf, { enabled: 'on', ...fields }, [oncall.id]));
      expect(answer.status, `${fields.name}: ${answer.html.slice(0, 300)}`).toBe(303);
      expect(answer.location).toMatch(new RegExp(`^${rulesPath}/\\d+\\?saved=created$`));
      const rule = (await rulesOf(shop.slug)).find((r) => r.name === fields.name)!;
      expect(rule).toMatchObject({ ...stored, channelIds: [oncall.id], enabled: true });
      const list = await admin.client.get(rulesPath);
      expect(list.html).toContain(`<a href="${rulesPath}/${rule.id}">${fields.name}</a></td><td>${words}</td>`);
    }
  });

  it('edits a rule: a new trigger and its settings, a filter removed, disabled (dark)', async () => {
    const admin = await signedInPerson(server, 'admin');
    const rule = (await rulesOf(shop.slug)).find((r) => r.name === 'Checkout spike')!;
    const checked = await openCheckedPage(browser, `${server.url}${rulesPath}/${rule.id}`, {
      cookies: admin.client.jar,
      colorScheme: 'dark',
      screenshot: 'alert-rule-dark',
    });
    try {
      const { page } = checked;
      await page.getByLabel('Name').fill('Checkout crowd');
      await page.getByLabel('An issue affects many users').check();
      await page.getByLabel('Users, more than').fill('40');
      await page.getByLabel('Environment').fill('');
      await page.getByLabel('Enabled').uncheck();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`${server.url}${rulesPath}/${rule.id}?saved=saved`);
      const facts = (await page.locator('.facts').textContent())!;
      expect(facts).toContain('More than 40 users affected');
      expect(facts).toContain('Any environment, error or worse');
      expect(facts).toContain('Disabled: it sends nothing');
      await checked.recheck('alert-rule-saved-dark');
    } finally {
      await checked.close();
    }
    expect((await rulesOf(shop.slug)).find((r) => r.id === rule.id)).toMatchObject({
      name: 'Checkout crowd',
      trigger: 'many_users',
      threshold: 40,
      windowMinutes: null,
      environment: null,
      enabled: false,
    });
    const list = await admin.client.get(rulesPath);
    expect(list.html).toContain('<span class="rule-status rule-status-disabled">Disabled</span>');
  });

  it('says what is wrong with each field and keeps what was typed (browser, light, dark and narrow)', async () => {
    const admin = await signedInPerson(server, 'admin');
    const csrf = await admin.client.token(`${rulesPath}/new`);
    const zero = await admin.client.post(
      rulesPath,
      ruleForm(csrf, { name: '  ', trigger: 'frequent', frequentThreshold: '0', frequentWindow: '10081', enabled: 'on' }, []),
    );
    expect(zero.status).toBe(400);
    expect(zero.html).toContain('The rule is not saved: some fields need a change, marked below.');
    expect(zero.html).toContain('The name must not be empty. Give the rule a name of up to 100 characters');
    expect(zero.html).toContain('The threshold must be at least 1. Write a whole number from 1 to 1000000000');
    expect(zero.html).toContain(
      'The window is at most 10080 (7 days). Write a whole number of minutes from 1 to 10080 (7 days).',
    );
    expect(zero.html).toContain('No channel is picked. Pick at least one of the channels listed');
    expect(zero.html).toContain('value="10081"');
    expect(zero.html).toMatch(/id="frequent-threshold"[^>]*value="0"/);

    const words = await admin.client.post(
      rulesPath,
      ruleForm(csrf, { name: 'Typo', trigger: 'frequent', frequentThreshold: 'many', enabled: 'on' }, [oncall.id]),
    );
    expect(words.html).toContain('&quot;many&quot; is not a whole number.');
    expect(words.html).toContain('The window is needed for this trigger.');
    const milestones = await admin.client.post(
      rulesPath,
      ruleForm(csrf, { name: 'M', trigger: 'milestone', milestones: '10, ten' }, [oncall.id]),
    );
    expect(milestones.html).toContain('&quot;ten&quot; is not a whole number. Write event counts separated by commas');
    const trigger = await admin.client.post(rulesPath, ruleForm(csrf, { name: 'T', trigger: 'sometimes' }, [oncall.id]));
    expect(trigger.html).toContain('&quot;sometimes&quot; is no trigger. Pick one of the triggers listed.');
    const before = (await rulesOf(shop.slug)).length;

    // The same in the browser, where the messages sit beside their fields.
    const checked = await openCheckedPage(browser, `${server.url}${rulesPath}/new`, {
      cookies: admin.client.jar,
      screenshot: 'alert-rule-new-light',
    });
    try {
      const { page } = checked;
      await page.getByLabel('Name').fill('Too eager');
      await page.getByLabel('An issue is frequent').check();
      await page.getByLabel('Events, more than').fill('0');
      await page.getByLabel('On-call <pager>').uncheck();
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create rule' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(response.status()).toBe(400);
      await expect(page.locator('#frequent-threshold-problem').textContent()).resolves.toMatch(
        /^The threshold must be at least 1\./,
      );
      await expect(page.getByLabel('Events, more than').getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.locator('#channels-problem').textContent()).resolves.toMatch(/^No channel is picked\./);
      expect(await page.getByLabel('Name').inputValue()).toBe('Too eager');
      await checked.recheck('alert-rule-refused');
      await page.emulateMedia({ colorScheme: 'dark' });
      await checked.recheck('alert-rule-refused-dark');
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('alert-rule-refused-narrow-dark');
    } finally {
      await checked.close();
    }
    expect(await rulesOf(shop.slug)).toHaveLength(before);
  });

  it("sends a test to the rule's channels, which the channel's deliveries log shows, and its url opens the rule", async () => {
    const admin = await signedInPerson(server, 'admin');
    const second = await channel('Second hook', 'second');
    const csrf = await admin.client.token(`${rulesPath}/new`);
    const created = await admin.client.post(
      rulesPath,
      ruleForm(csrf, { name: 'Tested', trigger: 'new_issue', enabled: 'on' }, [oncall.id, second.id]),
    );
    const rulePath = created.location!.replace(/\?.*$/, '');
    const checked = await openCheckedPage(browser, `${server.url}${rulePath}`, {
      cookies: admin.client.jar,
      screenshot: 'alert-rule-page',
    });
    try {
      const { page } = checked;
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.waitForURL(`${server.url}${rulePath}?saved=test`);
      const notice = (await page.locator('.notice-saved').textContent())!;
      expect(notice).toBe(
        "A test alert (kind test, sample issue TEST-1) is queued to On-call <pager>, Second hook: each channel's deliveries log shows it as it is sent.",
      );
      await checked.recheck('alert-rule-tested');
      const [request] = await receivedAt('second', 1);
      const header = String(request!.headers['x-errata-signature']);
      expect(verifyErrataWebhook({ secret: second.secret, header, rawBody: request!.rawBody })).toMatchObject({ ok: true });
      const payload = JSON.parse(request!.rawBody.toString('utf8'));
      const ruleId = Number(/(\d+)$/.exec(rulePath)![1]);
      expect(payload).toMatchObject({ kind: 'test', ruleName: 'Tested', issueShortId: 'TEST-1', projectName: 'Shop' });
      expect(payload.url).toBe(dashboardUrls.rule(server.url, 'default', shop.slug, ruleId));
      await receivedAt('oncall', 1);

      // The notice links each channel; its log shows the test, delivered.
      await page.getByRole('link', { name: 'Second hook' }).first().click();
      await page.waitForURL(`${server.url}${ORG}/alert-channels/${second.id}`);
      const row = page.locator('#deliveries tbody tr').first();
      await row.locator('.delivery-status', { hasText: 'Delivered' }).waitFor({ timeout: 30_000 });
      await expect(row.locator('code').textContent()).resolves.toBe('test');

      // The alert's url is the rule's page: it opens.
      const opened = await admin.client.get(new URL(payload.url).pathname);
      expect(opened.status).toBe(200);
      expect(opened.html).toContain('<h1>Tested</h1>');

      // A channel that had a test waiting got none more, and the notice says which.
      await page.goto(`${server.url}${rulePath}?saved=test&waiting=${second.id}`);
      await expect(page.locator('.notice-saved').textContent()).resolves.toBe(
        "A test alert (kind test, sample issue TEST-1) is queued to On-call <pager>: each channel's deliveries log shows it as it is sent. " +
          'Second hook already has a test waiting to be sent, and a channel gets one at a time.',
      );
      await checked.recheck('alert-rule-test-waiting');
    } finally {
      await checked.close();
    }
    // A test is no firing.
    expect((await rulesOf(shop.slug)).find((r) => r.name === 'Tested')!.lastFiredAt).toBeNull();
  });

  it('deletes a rule', async () => {
    const admin = await signedInPerson(server, 'admin');
    const rule = (await rulesOf(shop.slug)).find((r) => r.name === 'Defaults')!;
    const path = `${rulesPath}/${rule.id}`;
    const csrf = await admin.client.token(path);
    const deleted = await admin.client.post(`${path}/delete`, { csrf });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe(`${rulesPath}?saved=deleted`);
    expect((await admin.client.get(`${rulesPath}?saved=deleted`)).html).toContain('The rule is deleted.');
    expect((await admin.client.get(path)).status).toBe(404);
    expect((await rulesOf(shop.slug)).map((r) => r.name)).not.toContain('Defaults');
  });
});

describe('a new-issue rule firing on a real event', () => {
  it('sends the alert, and the list says when the rule last fired; a disabled rule stays silent', async () => {
    const fire = await project('Fire');
    const hook = await channel('Fire hook', 'fire');
    const admin = await signedInPerson(server, 'admin');
    const rulesPath = `${ORG}/projects/${fire.slug}/alert-rules`;
    const csrf = await admin.client.token(`${rulesPath}/new`);
    for (const [name, enabled] of [
      ['First sight', 'on'],
      ['Paused', ''],
    ] as const) {
      const fields: Record<string, string> = { name, trigger: 'new_issue', ...(enabled ? { enabled } : {}) };
      expect((await admin.client.post(rulesPath, ruleForm(csrf, fields, [hook.id]))).status).toBe(303);
    }
    const before = await admin.client.get(rulesPath);
    expect(before.html.match(/<span class="muted">Never<\/span>/g)).toHaveLength(2);

    const sent = await runProcess(
      process.execPath,
      [
        'alert-events.cjs',
        fire.dsn,
        'fire@1',
        'production',
        JSON.stringify([{ group: 'checkout', message: 'TypeError: cart is undefined' }]),
      ],
      { cwd: join(REPO_ROOT, 'test', 'clients', 'node') },
    );
    expect(sent.code, sent.stderr).toBe(0);
    const [alert] = await receivedAt('fire', 1);
    const payload = JSON.parse(alert!.rawBody.toString('utf8'));
    expect(payload).toMatchObject({ kind: 'new_issue', ruleName: 'First sight', projectName: 'Fire' });

    const checked = await openCheckedPage(browser, `${server.url}${rulesPath}`, {
      cookies: admin.client.jar,
      screenshot: 'alert-rules-fired',
    });
    try {
      const rows = checked.page.locator('tbody tr');
      const first = await rows.nth(0).locator('td').allTextContents();
      expect(first[0]).toBe('First sight');
      expect(first[4]).toMatch(/^(just now|\d+ (s|min) ago)$/);
      await expect(rows.nth(0).locator('.rule-fired time').getAttribute('datetime')).resolves.toMatch(/^\d{4}-\d\d-\d\dT/);
      const paused = await rows.nth(1).locator('td').allTextContents();
      expect(paused).toEqual(['Paused', 'A new issue', 'Any environment, any level', 'Fire hook', 'Never', 'Disabled']);
    } finally {
      await checked.close();
    }
    const stored = await cli<{ rules: RuleJson[] }>(['listrules', '--project', fire.slug, '--organization', 'default']);
    expect(stored.rules.find((r) => r.name === 'First sight')!.lastFiredAt).not.toBeNull();
    expect(stored.rules.find((r) => r.name === 'Paused')!.lastFiredAt).toBeNull();
    // Only the enabled rule's alert arrived.
    expect(receiver.received.filter((r) => r.url.endsWith('?channel=fire'))).toHaveLength(1);
  });
});

describe('alert rules at the HTTP level', () => {
  it('refuses a member every page and form, and hides the link on the project page', async () => {
    const shop = await project('Members shop');
    const hook = await channel('Members hook', 'members');
    const admin = await signedInPerson(server, 'admin');
    const rulesPath = `${ORG}/projects/${shop.slug}/alert-rules`;
    const created = await admin.client.post(
      rulesPath,
      ruleForm(await admin.client.token(`${rulesPath}/new`), { name: 'Guarded', trigger: 'new_issue', enabled: 'on' }, [hook.id]),
    );
    const rulePath = created.location!.replace(/\?.*$/, '');
    expect((await admin.client.get(`${ORG}/projects/${shop.slug}`)).html).toContain(`<a href="${rulesPath}">Alert rules</a>`);

    const member = await signedInPerson(server, 'member');
    for (const path of [rulesPath, `${rulesPath}/new`, rulePath]) {
      const answer = await member.client.get(path);
      expect(answer.status, path).toBe(403);
      expect(answer.html).toContain('this needs the owner or admin role; you are member');
    }
    const projectPage = await member.client.get(`${ORG}/projects/${shop.slug}`);
    expect(projectPage.status).toBe(200);
    expect(projectPage.html).not.toContain('Alert rules');
    const csrf = /name="errata-csrf" content="([^"]+)"/.exec(projectPage.html)![1]!;
    const fields = { name: 'Hijacked', trigger: 'every_occurrence', enabled: 'on' };
    for (const [path, form] of [
      [rulesPath, ruleForm(csrf, fields, [hook.id])],
      [rulePath, ruleForm(csrf, fields, [hook.id])],
      [`${rulePath}/test`, [['csrf', csrf]]],
      [`${rulePath}/delete`, [['csrf', csrf]]],
    ] as Array<[string, Array<[string, string]>]>) {
      expect((await member.client.post(path, form)).status, path).toBe(403);
    }
    expect((await rulesOf(shop.slug)).map((r) => [r.name, r.trigger])).toEqual([['Guarded', 'new_issue']]);
    expect(receiver.received.filter((r) => r.url.endsWith('?channel=members'))).toEqual([]);
  });

  it("never finds another organization's project or another project's rule, nor takes another organization's channel", async () => {
    const mine = await project('Mine');
    const theirs = await project('Theirs', 'other-org');
    const hook = await channel('My hook', 'mine');
    const foreign = await channel('Their hook', 'theirs', 'other-org');
    const owner = await signedInPerson(server, 'owner');
    const rulesPath = `${ORG}/projects/${mine.slug}/alert-rules`;
    const csrf = await owner.client.token(`${rulesPath}/new`);

    expect((await owner.client.get(`${ORG}/projects/${theirs.slug}/alert-rules`)).status).toBe(404);
    expect((await owner.client.get(`/organizations/other-org/projects/${theirs.slug}/alert-rules`)).status).toBe(200);
    expect(
      (
        await owner.client.post(
          `${ORG}/projects/${theirs.slug}/alert-rules`,
          ruleForm(csrf, { name: 'x', trigger: 'new_issue' }, [hook.id]),
        )
      ).status,
    ).toBe(404);

    // A form edited to name another organization's channel is refused, naming it, and saves nothing.
    const refused = await owner.client.post(
      rulesPath,
      ruleForm(csrf, { name: 'Sneaky', trigger: 'new_issue', enabled: 'on' }, [hook.id, foreign.id]),
    );
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(new RegExp(`Channel ${foreign.id} is not one of this organization(&#39;|')s\\.`));
    expect(refused.html).not.toContain('Their hook');
    expect(await rulesOf(mine.slug)).toEqual([]);

    const created = await owner.client.post(
      rulesPath,
      ruleForm(csrf, { name: 'Mine only', trigger: 'new_issue', enabled: 'on' }, [hook.id]),
    );
    const rulePath = created.location!.replace(/\?.*$/, '');
    const edited = await owner.client.post(
      rulePath,
      ruleForm(csrf, { name: 'Mine only', trigger: 'new_issue', enabled: 'on' }, [foreign.id]),
    );
    expect(edited.status).toBe(400);
    expect((await rulesOf(mine.slug))[0]!.channelIds).toEqual([hook.id]);

    // Another project's rule id, under this project: not found; nor an id that is no number.
    const otherProject = await project('Other shop');
    const ruleId = /(\d+)$/.exec(rulePath)![1];
    expect((await owner.client.get(`${ORG}/projects/${otherProject.slug}/alert-rules/${ruleId}`)).status).toBe(404);
    expect((await owner.client.post(`${ORG}/projects/${otherProject.slug}/alert-rules/${ruleId}/delete`, { csrf })).status).toBe(
      404,
    );
    expect((await owner.client.get(`${rulesPath}/99999999`)).status).toBe(404);
    expect((await owner.client.get(`${rulesPath}/abc`)).status).toBe(404);
    expect(await rulesOf(mine.slug)).toHaveLength(1);
  });
});
