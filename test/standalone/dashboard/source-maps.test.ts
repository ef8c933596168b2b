// A project's Source maps page in a real browser against a real server: an admin mints an
// upload token and the real sentry-cli uploads a bundle's files with exactly the environment the
// page showed; the stored map is listed and symbolicates an event from that bundle; deleted on
// the page, its files are gone and the next event from the bundle keeps its minified frames; the
// plaintext is in the mint answer only; revoking refuses sentry-cli's next upload (401). Then the
// role matrix and the refusals at the HTTP level, with another organization beside `default`.
import { readdir, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { UPLOAD_COMMAND } from '../../../services/core/provisioning/upload-tokens.ts';
import { launchChromium, linesOf, openCheckedPage } from '../../support/browser.ts';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { addOrganization } from '../../support/embedded-admin.ts';
import { buildSourceMapApp, throwFromBundle, type SourceMapApp } from '../../support/source-map-app.ts';
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

let server: StandaloneServer;
let browser: Browser;
let app: SourceMapApp;
let dsn: string;
let reader: string;
const ORG = '/organizations/default';
const PAGE = `${ORG}/projects/web/source-maps`;

beforeAll(async () => {
  const dataDir = await initializedDataDir();
  await runCliJson(['listprojects'], { ...process.env, ERRATA_DATA_DIR: dataDir });
  await addOrganization(dataDir, 'other-org');
  server = await startServer({ dataDir });
  browser = await launchChromium(inject('chromium'));
  dsn = (await runCliJson<{ dsn: string }>(['createproject', '--name', 'web', '--organization', 'default'], server.env)).dsn;
  await runCliJson(['createproject', '--name', 'shop', '--organization', 'default'], server.env);
  await runCliJson(['createproject', '--name', 'mobile', '--organization', 'other-org'], server.env);
  reader = (
    await runCliJson<{ plaintext: string }>(
      ['createtoken', '--role', 'read', '--project', 'web', '--organization', 'default'],
      server.env,
    )
  ).plaintext;
  app = await buildSourceMapApp();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (server) await stopAndRemove(server);
  if (app) await rm(app.dir, { recursive: true, force: true });
});

/** `export NAME=value` lines as variables (the values are URLs, slugs and tokens: nothing to unquote). */
function exported(block: string): Record<string, string> {
  return Object.fromEntries(
    block.split('\n').map((line) => {
      const match = /^export ([A-Z_]+)=(\S+)$/.exec(line);
      if (!match) throw new Error(`not an export line: ${line}`);
      return [match[1]!, match[2]!];
    }),
  );
}

/**
 * Runs the command the page showed, in a shell, in the app's folder, with the variables it
 * showed and nothing else of ours: the PATH finds npm's sentry-cli, and the update check is off
 * (no network here).
 */
function runShown(command: string, variables: Record<string, string>) {
  return runProcess('sh', ['-c', command], {
    cwd: app.dir,
    env: {
      PATH: `${join(REPO_ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`,
      HOME: process.env.HOME,
      SENTRY_DISABLE_UPDATE_CHECK: '1',
      ...variables,
    },
    timeoutMs: 60_000,
  });
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** Blob files whose path names the Debug ID. */
async function blobsOf(debugId: string): Promise<string[]> {
  const entries = await readdir(join(server.dataDir, 'blobs'), { recursive: true }).catch(() => [] as string[]);
  return entries.filter((entry) => entry.includes(debugId) && /\.gz$/.test(entry));
}

const readApi = async <T>(path: string): Promise<T> => {
  const response = await fetch(`${server.url}/api/v1/organizations/default${path}`, {
    headers: { authorization: `Bearer ${reader}` },
  });
  return (await response.json()) as T;
};

const issues = async () =>
  (await readApi<{ issues: Array<{ shortId: string; title: string; count: number }> }>('/projects/web/issues?status=all')).issues;

/** The last frame of an issue's latest event, once the event is stored. */
const lastFrameOf = (shortId: string) =>
  eventually(async () => {
    const { latestEvent } = await readApi<{ latestEvent: { payload: any } | null }>(`/issues/${shortId}`);
    return latestEvent?.payload.exception.values[0].stacktrace.frames.at(-1) as
      { filename: string; function?: string } | undefined;
  }, `the stored event of ${shortId}`);

describe('uploading, using and deleting source maps from the page', () => {
  let variables: Record<string, string>;

  it('mints a token shown once inside the environment sentry-cli reads; sentry-cli uploads with it; the map symbolicates; deleted, it no longer does', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: admin.client.jar,
      screenshot: 'source-maps-empty',
    });
    try {
      const { page } = checked;
      await expect(page.getByRole('region', { name: 'Stored maps' }).textContent()).resolves.toContain('No source maps stored');
      await page.getByLabel('Name (optional)').fill('ci-deploy');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Create upload token' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(response.status()).toBe(201);
      expect(response.headers()['cache-control']).toBe('no-store');
      await checked.recheck('source-maps-token-created');

      const block = (await page.locator('#upload-environment').textContent())!;
      variables = exported(block);
      expect(Object.keys(variables).sort()).toEqual(['SENTRY_AUTH_TOKEN', 'SENTRY_ORG', 'SENTRY_PROJECT', 'SENTRY_URL']);
      expect(variables).toMatchObject({ SENTRY_URL: server.url, SENTRY_PROJECT: 'web' });
      expect(variables.SENTRY_AUTH_TOKEN).toMatch(/^errata_\S{20,}$/);
      const command = (await page.locator('#upload-command').textContent())!;
      expect(command).toBe(UPLOAD_COMMAND);
      // Once: in the environment block, nowhere else in the page (not in an attribute either).
      expect(occurrences(await page.content(), variables.SENTRY_AUTH_TOKEN!)).toBe(1);
      await expect(page.getByRole('row', { name: /ci-deploy/ }).count()).resolves.toBe(1);

      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      await page.getByRole('button', { name: 'Copy the environment with the token' }).click();
      await page.locator('button[data-copy="upload-environment"] .copy-label', { hasText: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(block);

      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('source-maps-token-created-narrow');
      await page
        .locator('.token-minted')
        .screenshot({ path: join(REPO_ROOT, 'test-results', 'dashboard', 'source-maps-token-block-narrow.png') });
      // Nothing widens the page past the screen: the lines wrap or scroll inside their box.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
      await page.setViewportSize({ width: 1280, height: 720 });

      // The real sentry-cli, run as the page says, with only what it showed.
      const uploaded = await runShown(command, variables);
      expect(uploaded.code, `${uploaded.stdout}\n${uploaded.stderr}`).toBe(0);
      await eventually(
        async () => ((await admin.client.get(PAGE)).html.includes(app.debugId) ? true : undefined),
        'the stored map on the page',
      );
      await page.goto(`${server.url}${PAGE}`);
      await checked.recheck('source-maps-stored');
      await page.emulateMedia({ colorScheme: 'dark' });
      await checked.recheck('source-maps-stored-dark');
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 390, height: 844 });
      await checked.recheck('source-maps-stored-narrow');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
      // The maker's email wraps under the date; the token's short name is not broken beside it.
      await expect(linesOf(page.locator('td.upload-token-name', { hasText: 'ci-deploy' }))).resolves.toBe(1);
      await page.setViewportSize({ width: 1280, height: 720 });
      expect(await page.content()).not.toContain(variables.SENTRY_AUTH_TOKEN);
      const group = page.getByRole('listitem').filter({ hasText: app.debugId });
      await expect(group.getByRole('row', { name: /Minified file ~\/app\.js / }).count()).resolves.toBe(1);
      await expect(group.getByRole('row', { name: /Source map ~\/app\.js\.map .*Never/ }).count()).resolves.toBe(1);
      expect(await blobsOf(app.debugId)).toHaveLength(2);

      // An error from the bundle is symbolicated, and the map's use shows on the page.
      await throwFromBundle(app, dsn);
      const symbolicated = await eventually(async () => (await issues())[0], 'the issue of the thrown error');
      const frame = await lastFrameOf(symbolicated.shortId);
      expect(frame.filename).toMatch(/src\/cart\.js$/);
      expect(frame.function).toBe('totalOf');
      await eventually(
        async () => ((await admin.client.get(PAGE)).html.includes('>Never<') ? undefined : true),
        'the map marked as used',
      );

      // Deleted on the page: files and index entries gone.
      await page.goto(`${server.url}${PAGE}`);
      await page.getByRole('button', { name: `Delete, cannot be undone — the files of Debug ID ${app.debugId}` }).click();
      await page.waitForURL(`${server.url}${PAGE}?saved=deleted`);
      await expect(page.getByRole('status').textContent()).resolves.toContain(
        'Deleted: events from now on keep their minified frames',
      );
      await checked.recheck('source-maps-deleted');
      expect(await page.content()).not.toContain(app.debugId);
      expect(await blobsOf(app.debugId)).toEqual([]);

      // The next event from the bundle keeps its minified frames, so it is grouped apart.
      await throwFromBundle(app, dsn);
      // Counted once stored, whichever issue it joined: a map still in use would have put it in the first one.
      const after = await eventually(async () => {
        const list = await issues();
        return list.reduce((sum, issue) => sum + issue.count, 0) >= 2 ? list : undefined;
      }, 'the event after the deletion');
      const minified = after.find((issue) => issue.shortId !== symbolicated.shortId);
      if (!minified) throw new Error('the event after the deletion was symbolicated: it joined the first issue');
      expect((await lastFrameOf(minified.shortId)).filename).toMatch(/dist\/app\.js$/);
    } finally {
      await checked.close();
    }
  }, 180_000);

  it('revokes the token on the page, and sentry-cli is refused with 401 on its next upload', async () => {
    const admin = await signedInPerson(server, 'admin');
    const checked = await openCheckedPage(browser, `${server.url}${PAGE}`, {
      cookies: admin.client.jar,
      colorScheme: 'dark',
      screenshot: 'source-maps-dark',
    });
    try {
      const { page } = checked;
      // Its maker is named: their removal, or their becoming a member, revokes it.
      expect(await page.locator('.upload-tokens-table tbody tr').first().textContent()).toMatch(
        /^ci-deploy.* by \S+@example\.com/,
      );
      await page.getByRole('button', { name: 'Revoke the upload token ci-deploy' }).click();
      await page.waitForURL(`${server.url}${PAGE}?saved=revoked`);
      await expect(page.getByRole('status').textContent()).resolves.toBe(
        'Revoked: sentry-cli is refused (401) from its next upload.',
      );
      await checked.recheck('source-maps-revoked-dark');
      expect(await page.content()).not.toContain(variables.SENTRY_AUTH_TOKEN);
    } finally {
      await checked.close();
    }
    const refused = await runShown(UPLOAD_COMMAND, variables);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/401/);
  }, 120_000);
});

describe('who may use the page, and what it refuses', () => {
  it('is for admins and owners: a member gets 403 on the page and on every form, and no tab leads there', async () => {
    const member = await signedInPerson(server, 'member');
    const owner = await signedInPerson(server, 'owner');
    expect((await owner.client.get(PAGE)).status).toBe(200);
    const ownerProject = await owner.client.get(`${ORG}/projects/web`);
    expect(ownerProject.html).toContain(`href="${PAGE}"`);

    const refused = await member.client.get(PAGE);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('this needs the owner or admin role; you are member');
    expect((await member.client.get(`${ORG}/projects/web`)).html).not.toContain('source-maps');
    const csrf = await member.client.token('/account');
    for (const [path, fields] of [
      [`${PAGE}/upload-tokens`, { name: 'member-made' }],
      [`${PAGE}/upload-tokens/revoke`, { name: 'ci-deploy' }],
      [`${PAGE}/delete`, { debugId: app.debugId }],
    ] as const) {
      expect((await member.client.post(path, { csrf, ...fields })).status, path).toBe(403);
    }
    const tokens = await runCliJson<{ tokens: Array<{ name: string }> }>(
      ['listuploadtokens', '--organization', 'default'],
      server.env,
    );
    expect(tokens.tokens.map((t) => t.name)).not.toContain('member-made');
  });

  it("answers 404 for another organization's project and an unknown one, and revokes no other project's token", async () => {
    const admin = await signedInPerson(server, 'admin');
    // mobile is other-org's: through default's address it does not exist; through its own, it does.
    expect((await admin.client.get(`${ORG}/projects/mobile/source-maps`)).status).toBe(404);
    expect((await admin.client.get('/organizations/other-org/projects/mobile/source-maps')).status).toBe(200);
    expect((await admin.client.get(`${ORG}/projects/no-such-project/source-maps`)).status).toBe(404);

    await runCliJson(['createuploadtoken', '--project', 'shop', '--name', 'shop-ci', '--organization', 'default'], server.env);
    const csrf = await admin.client.token(PAGE);
    const other = await admin.client.post(`${PAGE}/upload-tokens/revoke`, { csrf, name: 'shop-ci' });
    expect(other.status).toBe(404);
    expect(other.html).toContain(
      'No live upload token named &quot;shop-ci&quot; in project web: it may be revoked already, or belong to another project',
    );
    const tokens = await runCliJson<{ tokens: Array<{ name: string; revokedAt: string | null }> }>(
      ['listuploadtokens', '--organization', 'default'],
      server.env,
    );
    expect(tokens.tokens.find((t) => t.name === 'shop-ci')?.revokedAt).toBeNull();
    expect((await admin.client.get(`${ORG}/projects/shop/source-maps`)).html).toContain('shop-ci');
    expect((await admin.client.get(PAGE)).html).not.toContain('shop-ci');

    const unknownMap = await admin.client.post(`${PAGE}/delete`, { csrf, debugId: '00000000-0000-4000-8000-000000000000' });
    expect(unknownMap.status).toBe(404);
    expect(unknownMap.html).toContain('this page lists them');
  });

  it('refuses a bad or taken name with the reason, keeping what was typed, and posts from another site', async () => {
    const admin = await signedInPerson(server, 'admin');
    await runCliJson(['createuploadtoken', '--project', 'shop', '--name', 'taken', '--organization', 'default'], server.env);
    const csrf = await admin.client.token(PAGE);
    const taken = await admin.client.post(`${PAGE}/upload-tokens`, { csrf, name: 'taken' });
    expect(taken.status).toBe(409);
    expect(taken.html).toContain(
      'A live upload token named &quot;taken&quot; exists: choose another name, or revoke that one first.',
    );
    expect(taken.html).toContain('value="taken"');
    expect(taken.html).not.toContain('upload-environment');
    const bad = await admin.client.post(`${PAGE}/upload-tokens`, { csrf, name: 'two\nlines' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('A token name (the Name field) must be at most 100 characters');

    const foreign = { origin: 'https://elsewhere.example' };
    expect((await admin.client.post(`${PAGE}/upload-tokens`, { csrf, name: 'cross-site' }, foreign)).status).toBe(403);
    expect((await admin.client.post(`${PAGE}/upload-tokens`, { csrf: 'not-the-token', name: 'bad-csrf' })).status).toBe(403);
    const tokens = await runCliJson<{ tokens: Array<{ name: string }> }>(
      ['listuploadtokens', '--organization', 'default'],
      server.env,
    );
    expect(tokens.tokens.map((t) => t.name)).not.toEqual(expect.arrayContaining(['cross-site']));
    expect(tokens.tokens.map((t) => t.name)).not.toContain('bad-csrf');
  });
});
