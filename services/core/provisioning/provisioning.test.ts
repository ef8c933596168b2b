import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { hashSecret } from '../auth/secrets.ts';
import { ConflictError, NotFoundError, UserInputError } from '../errors.ts';
import { createAgentToken, listAgentTokens, mcpClientConfiguration, revokeAgentToken } from './agent-tokens.ts';
import { createProject } from './projects.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
  await stores.metadata.ensureOrganization('default', 'Default');
});
afterAll(() => stores.close());

const baseUrl = 'http://localhost:8000';

describe('createProject', () => {
  it('creates the project with a DSN whose trailing segment is its integer id', async () => {
    const created = await createProject(stores.metadata, { name: 'My Web App' }, { baseUrl });
    expect(created.project.slug).toBe('my-web-app');
    expect(created.publicKey).toMatch(/^[0-9a-f]{32}$/);
    expect(created.dsn).toBe(`http://${created.publicKey}@localhost:8000/${created.project.id}`);
    expect((await stores.metadata.findProjectKey(created.publicKey))?.project.id).toBe(created.project.id);
  });

  it('refuses a taken slug and a bad one with a message saying what to do', async () => {
    await createProject(stores.metadata, { name: 'API', slug: 'api' }, { baseUrl });
    await expect(createProject(stores.metadata, { name: 'API 2', slug: 'api' }, { baseUrl })).rejects.toThrow(ConflictError);
    await expect(createProject(stores.metadata, { name: 'x', slug: 'Bad Slug' }, { baseUrl })).rejects.toThrow(/invalid slug/);
    await expect(createProject(stores.metadata, { name: '!!!' }, { baseUrl })).rejects.toThrow(/pass --slug/);
  });
});

describe('agent tokens', () => {
  it('mints a triage token by default, storing only its hash', async () => {
    const created = await createAgentToken(stores.metadata, { name: 'laptop' });
    expect(created.plaintext).toMatch(/^errata_agent_[0-9A-Za-z]{43}$/);
    expect(created.token).toMatchObject({ name: 'laptop', role: 'triage', projectId: null });
    expect((await stores.metadata.findAgentToken(hashSecret(created.plaintext)))?.id).toBe(created.token.id);
    const rows = await stores.client.query<{ token_hash: string }>('SELECT token_hash FROM agent_tokens');
    expect(rows.rows.some((r) => r.token_hash.includes(created.plaintext.slice(13)))).toBe(false);
  });

  it('scopes a token to a project and names it when no name is given', async () => {
    await createProject(stores.metadata, { name: 'Web', slug: 'web' }, { baseUrl });
    const created = await createAgentToken(stores.metadata, { role: 'read', project: 'web' });
    expect(created.token).toMatchObject({ role: 'read', projectSlug: 'web' });
    expect(created.token.name).toMatch(/^read-web-[0-9a-z]{6}$/);
    await expect(createAgentToken(stores.metadata, { project: 'nope' })).rejects.toThrow(NotFoundError);
    await expect(createAgentToken(stores.metadata, { role: 'owner' })).rejects.toThrow(
      /unknown role "owner": use read, triage or admin/,
    );
  });

  it('revokes by name, immediately', async () => {
    const created = await createAgentToken(stores.metadata, { name: 'temp', role: 'admin' });
    await revokeAgentToken(stores.metadata, { name: 'temp' });
    expect(await stores.metadata.findAgentToken(hashSecret(created.plaintext))).toBeUndefined();
    await expect(revokeAgentToken(stores.metadata, { name: 'temp' })).rejects.toThrow(NotFoundError);
    expect((await listAgentTokens(stores.metadata, {})).find((t) => t.name === 'temp')?.revokedAt).toBeInstanceOf(Date);
  });

  it('refuses a name with a control character or a lone surrogate, or over 100 characters', async () => {
    // Names are identifiers (revoketoken <name>), so they are refused rather than stored altered.
    for (const name of ['a\u0000b', 'line\nbreak', 'tab\there', 'x\ud800', 'n'.repeat(101)]) {
      await expect(createAgentToken(stores.metadata, { name }), JSON.stringify(name)).rejects.toThrow(
        /at most 100 characters of valid Unicode without control characters/,
      );
    }
    expect((await createAgentToken(stores.metadata, { name: 'laptop ✓ 😀' })).token.name).toBe('laptop ✓ 😀');
  });

  it('asks for --organization when the instance has several', async () => {
    await stores.metadata.ensureOrganization('second', 'Second');
    await expect(createAgentToken(stores.metadata, { name: 'x' })).rejects.toThrow(UserInputError);
    await expect(createAgentToken(stores.metadata, { name: 'x' })).rejects.toThrow(
      /pass --organization <slug> \(one of: default, second\)/,
    );
    const created = await createAgentToken(stores.metadata, { name: 'x', organization: 'second' });
    expect(created.organizationSlug).toBe('second');
  });

  it('prints a ready-to-paste MCP client configuration', () => {
    const config = mcpClientConfiguration('https://errors.example.com', 'errata_agent_abc');
    expect(config.command).toBe(
      'claude mcp add --transport http errata https://errors.example.com/mcp --header "Authorization: Bearer errata_agent_abc"',
    );
    expect(JSON.parse(config.json)).toEqual({
      mcpServers: {
        errata: { type: 'http', url: 'https://errors.example.com/mcp', headers: { Authorization: 'Bearer errata_agent_abc' } },
      },
    });
  });
});
