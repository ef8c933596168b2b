// Alert channels and rules stay inside their organization and project: a second organization's
// admin token, and a token scoped to another project, see only "not found" for real ids; a
// project-scoped token sees the organization's channels by host, not by URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, stopAndRemove, type StandaloneServer } from '../support/standalone-server.ts';
import { startTwoOrganizationServer, type TwoOrganizations } from '../support/two-organizations.ts';

let server: StandaloneServer;
let tokens: TwoOrganizations['tokens'];

const call = (method: string, path: string, token: string, body?: unknown) =>
  apiRequest(server, method, `/api/v1/organizations${path}`, token, body);

beforeAll(async () => {
  ({ server, tokens } = await startTwoOrganizationServer());
}, 120_000);
afterAll(() => stopAndRemove(server));

describe('alert isolation', () => {
  it("another organization's admin token finds nothing of this one, by any path", async () => {
    const channel = (
      await call('POST', '/default/alert-channels', tokens.admin, { name: 'Ops', url: 'https://hooks.example.com/a' })
    ).body.channel;
    const rule = (
      await call('POST', '/default/projects/shop/alert-rules', tokens.admin, {
        name: 'New',
        trigger: 'new_issue',
        channelIds: [channel.id],
      })
    ).body.rule;
    for (const [method, path] of [
      ['GET', `/default/alert-channels/${channel.id}`],
      ['GET', `/default/alert-channels/${channel.id}/secret`],
      ['POST', `/default/alert-channels/${channel.id}/rotate`],
      ['GET', `/default/alert-channels/${channel.id}/deliveries`],
      ['DELETE', `/default/alert-channels/${channel.id}`],
      ['GET', `/default/projects/shop/alert-rules/${rule.id}`],
      ['DELETE', `/default/projects/shop/alert-rules/${rule.id}`],
      // Its own organization in the path, this organization's ids:
      ['GET', `/other-org/alert-channels/${channel.id}`],
      ['GET', `/other-org/alert-channels/${channel.id}/secret`],
      ['DELETE', `/other-org/alert-channels/${channel.id}`],
      ['GET', `/other-org/projects/web/alert-rules/${rule.id}`],
    ] as const) {
      expect((await call(method, path, tokens.other)).status, `${method} ${path}`).toBe(404);
    }
    expect((await call('GET', '/other-org/alert-channels', tokens.other)).body.channels).toEqual([]);
    // Nor may its rules name this organization's channel.
    const borrowed = await call('POST', '/other-org/projects/web/alert-rules', tokens.other, {
      name: 'Borrowed',
      trigger: 'new_issue',
      channelIds: [channel.id],
    });
    expect(borrowed.status).toBe(400);
    expect(borrowed.body.error.message).toMatch(new RegExp(`no alert channel ${channel.id} in organization other-org`));
    // Everything is still there for its owner.
    expect((await call('GET', `/default/alert-channels/${channel.id}`, tokens.admin)).status).toBe(200);
    expect((await call('GET', `/default/projects/shop/alert-rules/${rule.id}`, tokens.admin)).status).toBe(200);
  });

  it("a project-scoped admin token manages its project's rules only", async () => {
    const channel = (
      await call('POST', '/default/alert-channels', tokens.admin, { name: 'Web', url: 'https://hooks.example.com/w' })
    ).body.channel;
    const shopRule = (
      await call('POST', '/default/projects/shop/alert-rules', tokens.admin, {
        name: 'Shop',
        trigger: 'new_issue',
        channelIds: [channel.id],
      })
    ).body.rule;
    expect((await call('GET', '/default/projects/shop/alert-rules', tokens.adminWeb)).status).toBe(404);
    expect((await call('GET', `/default/projects/shop/alert-rules/${shopRule.id}`, tokens.adminWeb)).status).toBe(404);
    // The shop rule's id under the web project is not the shop rule.
    expect((await call('GET', `/default/projects/web/alert-rules/${shopRule.id}`, tokens.adminWeb)).status).toBe(404);
    expect((await call('DELETE', `/default/projects/web/alert-rules/${shopRule.id}`, tokens.adminWeb)).status).toBe(404);
    const own = await call('POST', '/default/projects/web/alert-rules', tokens.adminWeb, {
      name: 'Web',
      trigger: 'new_issue',
      channelIds: [channel.id],
    });
    expect(own.status).toBe(201);
    expect((await call('PATCH', `/default/alert-channels/${channel.id}`, tokens.adminWeb, { name: 'Mine' })).status).toBe(403);
  });

  it("shows a project-scoped admin token the organization's channels by receiver host, never their URLs", async () => {
    // A Slack incoming webhook's URL is its credential, and the channel serves every project.
    const url = 'https://hooks.example.com/services/T000/B000/credential';
    const channel = (await call('POST', '/default/alert-channels', tokens.admin, { name: 'Slack', url })).body.channel;
    expect(channel.url).toBe(url);

    const listed = await call('GET', '/default/alert-channels', tokens.adminWeb);
    expect(listed.status).toBe(200);
    expect(listed.body.channels).toContainEqual({
      id: channel.id,
      name: 'Slack',
      type: 'webhook',
      host: 'hooks.example.com',
      digest: null,
      createdAt: channel.createdAt,
    });
    const one = await call('GET', `/default/alert-channels/${channel.id}`, tokens.adminWeb);
    expect(one.body.channel).toEqual(expect.objectContaining({ id: channel.id, host: 'hooks.example.com' }));
    expect(JSON.stringify([listed.body, one.body])).not.toContain('credential');

    // The organization-wide token sees the whole channel.
    expect((await call('GET', `/default/alert-channels/${channel.id}`, tokens.admin)).body.channel.url).toBe(url);
  });
});
