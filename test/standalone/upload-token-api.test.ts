// Source map upload tokens through the management API: admin agent tokens only, confined to
// their organization and project, the plaintext shown once, and the CLI seeing the same tokens;
// and the project endpoints (rename, delete) confined the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, runCliJson, stopAndRemove, type StandaloneServer } from '../support/standalone-server.ts';
import { startTwoOrganizationServer, type TwoOrganizations } from '../support/two-organizations.ts';

let server: StandaloneServer;
let tokens: TwoOrganizations['tokens'];

const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
  apiRequest(server, method, path, token, body);

const base = '/api/v1/organizations/default/projects';

beforeAll(async () => {
  ({ server, tokens } = await startTwoOrganizationServer());
}, 120_000);
afterAll(() => stopAndRemove(server));

describe('upload token API', () => {
  it("creates a token shown once with the upload tools' settings, lists and revokes it", async () => {
    const created = await call('POST', `${base}/web/upload-tokens`, tokens.admin, { name: 'ci-web' });
    expect(created.status).toBe(201);
    expect(created.body.plaintext).toMatch(/^errata_[0-9A-Za-z]{43}$/);
    expect(created.body.token).toMatchObject({ name: 'ci-web', project: 'web', revokedAt: null });
    expect(created.body.uploadToolEnvironment).toEqual([
      `SENTRY_URL=${server.url}`,
      `SENTRY_AUTH_TOKEN=${created.body.plaintext}`,
      'SENTRY_ORG=errata',
      'SENTRY_PROJECT=web',
    ]);
    const listed = await call('GET', `${base}/web/upload-tokens`, tokens.admin);
    expect(listed.body.tokens.map((t: { name: string }) => t.name)).toEqual(['ci-web']);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.plaintext);
    const cli = await runCliJson<{ tokens: Array<{ name: string }> }>(
      ['listuploadtokens', '--organization', 'default'],
      server.env,
    );
    expect(cli.tokens.map((t) => t.name)).toContain('ci-web');
    expect((await call('POST', `${base}/web/upload-tokens`, tokens.admin, { name: 'ci-web' })).status).toBe(409);
    const revoked = await call('DELETE', `${base}/web/upload-tokens/ci-web`, tokens.admin);
    expect(revoked.status).toBe(200);
    expect(revoked.body.token.revokedAt).not.toBeNull();
    expect((await call('DELETE', `${base}/web/upload-tokens/ci-web`, tokens.admin)).status).toBe(404);
    const unnamed = await call('POST', `${base}/shop/upload-tokens`, tokens.admin);
    expect(unnamed.status).toBe(201);
    expect(unnamed.body.token.name).toMatch(/^upload-shop-/);
  });

  it('needs an admin token of the organization that can see the project', async () => {
    expect((await call('GET', `${base}/web/upload-tokens`, undefined)).status).toBe(401);
    const triage = await call('POST', `${base}/web/upload-tokens`, tokens.triage, {});
    expect(triage.status).toBe(403);
    expect(triage.body.error.message).toContain('role admin');
    // A project-scoped admin works on its project, and another project looks like no project.
    expect((await call('POST', `${base}/web/upload-tokens`, tokens.adminWeb, { name: 'scoped' })).status).toBe(201);
    const elsewhere = await call('GET', `${base}/shop/upload-tokens`, tokens.adminWeb);
    const missing = await call('GET', `${base}/nope/upload-tokens`, tokens.adminWeb);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.message.replace('shop', 'X')).toBe(missing.body.error.message.replace('nope', 'X'));
    expect((await call('DELETE', `${base}/shop/upload-tokens/anything`, tokens.adminWeb)).status).toBe(404);
    // Another organization's admin sees neither the organization nor its tokens.
    expect((await call('GET', `${base}/web/upload-tokens`, tokens.other)).status).toBe(404);
    const own = await call('GET', '/api/v1/organizations/other-org/projects/web/upload-tokens', tokens.other);
    expect(own.body.tokens).toEqual([]);
  });

  it('refuses a bad body with a message saying what to send', async () => {
    const bad = await call('POST', `${base}/web/upload-tokens`, tokens.admin, { name: 7 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('{"name"');
    const notJson = await call('POST', `${base}/web/upload-tokens`, tokens.admin, '{"name":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.message).toContain('not valid JSON');
  });

  it('refuses a key it does not know by name, listing the accepted ones, and creates nothing', async () => {
    const refused = await call('POST', `${base}/web/upload-tokens`, tokens.admin, { name: 'strict', project: 'shop' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('unknown key "project"');
    expect(refused.body.error.message).toContain('accepted keys are name');
    const listed = await call('GET', `${base}/web/upload-tokens`, tokens.admin);
    expect(listed.body.tokens.map((t: { name: string }) => t.name)).not.toContain('strict');
  });

  it('refuses a name with a control character or a lone surrogate, saying what a name may hold', async () => {
    // A name is how the token is revoked (DELETE .../upload-tokens/{name}): a NUL answered 500.
    for (const name of ['ci\u0000web', 'ci\ud800', 'ci\tweb']) {
      const refused = await call('POST', `${base}/web/upload-tokens`, tokens.admin, { name });
      expect([JSON.stringify(name), refused.status]).toEqual([JSON.stringify(name), 400]);
      expect(refused.body.error.message).toContain('without control characters');
    }
    const listed = await call('GET', `${base}/web/upload-tokens`, tokens.admin);
    expect(listed.body.tokens.map((t: { name: string }) => t.name).filter((n: string) => n.startsWith('ci\ufffd'))).toEqual([]);
  });

  it('refuses a query parameter it does not know, as the read API does', async () => {
    const refused = await call('GET', `${base}/web/upload-tokens?project=shop`, tokens.admin);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('unknown query parameter "project"; this takes no query parameters');
    expect((await call('DELETE', `${base}/web/upload-tokens/x?force=1`, tokens.admin)).status).toBe(400);
    expect((await call('GET', `${base}/web/source-maps?debugId=x`, tokens.admin)).status).toBe(400);
  });
});

describe('renaming and deleting a project through the API, across organizations', () => {
  it('finds no project of another organization, and the scoped token no project but its own: nothing renamed or deleted', async () => {
    const theirs = '/api/v1/organizations/other-org/projects/web';
    expect((await call('DELETE', `${theirs}?confirm=web`, tokens.admin)).status).toBe(404);
    expect((await call('PUT', theirs, tokens.admin, { name: 'Taken over' })).status).toBe(404);
    expect((await call('DELETE', `${base}/shop?confirm=shop`, tokens.other)).status).toBe(404);
    expect((await call('DELETE', `${base}/shop?confirm=shop`, tokens.adminWeb)).status).toBe(404);
    expect((await call('PUT', `${base}/shop`, tokens.other, { name: 'Taken over' })).status).toBe(404);
    expect((await call('PUT', `${base}/shop`, tokens.adminWeb, { name: 'Taken over' })).status).toBe(404);
    // The scoped token renames its own project.
    expect((await call('PUT', `${base}/web`, tokens.adminWeb, { name: 'Web' })).body).toEqual({
      project: { slug: 'web', name: 'Web' },
    });
    const projects = await runCliJson<{ projects: Array<{ slug: string; name: string }> }>(
      ['listprojects', '--organization', 'other-org'],
      server.env,
    );
    expect(projects.projects).toEqual([expect.objectContaining({ slug: 'web', name: 'web' })]);
    const ours = await runCliJson<{ projects: Array<{ slug: string; name: string }> }>(
      ['listprojects', '--organization', 'default'],
      server.env,
    );
    expect(ours.projects.find((p) => p.slug === 'shop')?.name).toBe('shop');
    expect((await call('GET', `${base}/shop/upload-tokens`, tokens.admin)).status).toBe(200);
  });
});
