import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { hashSecret } from '../auth/secrets.ts';
import { ConflictError, NotFoundError, UserInputError } from '../errors.ts';
import { createAgentToken, listAgentTokens, revokeAgentToken } from './agent-tokens.ts';
import { addProjectKey, setEventRateLimit, setKeyActiveIn } from './project-keys.ts';
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
    await expect(createProject(stores.metadata, { name: '!!!' }, { baseUrl })).rejects.toThrow(
      'invalid slug derived from the name (give a slug of its own) "": use 1-50 lowercase letters',
    );
  });
});

describe("a project's DSN keys and rate limit", () => {
  it('adds a labelled key, and enables or disables only keys of that project', async () => {
    const shop = await createProject(stores.metadata, { name: 'Shop' }, { baseUrl });
    const other = await createProject(stores.metadata, { name: 'Other' }, { baseUrl });
    const key = await addProjectKey(stores.metadata, shop.project, '  Mobile app ');
    expect(key).toMatchObject({ projectId: shop.project.id, label: 'Mobile app', active: true });
    expect(key.publicKey).toMatch(/^[0-9a-f]{32}$/);
    await expect(addProjectKey(stores.metadata, shop.project, ' ')).rejects.toThrow(/needs a label of 1 to 100 characters/);
    expect((await setKeyActiveIn(stores.metadata, shop.project, key.publicKey, false)).active).toBe(false);
    expect((await setKeyActiveIn(stores.metadata, shop.project, key.publicKey, true)).active).toBe(true);
    await expect(setKeyActiveIn(stores.metadata, other.project, key.publicKey, false)).rejects.toThrow(NotFoundError);
    expect((await stores.metadata.findProjectKey(key.publicKey))?.key.active).toBe(true);
  });

  it('sets and clears the events-per-minute limit, answering every key of the project, and refuses a bad number', async () => {
    const created = await createProject(stores.metadata, { name: 'Limited' }, { baseUrl });
    expect(await setEventRateLimit(stores.metadata, created.project, 60)).toEqual([created.publicKey]);
    expect((await stores.metadata.getProject(created.project.id))?.rateLimitPerMinute).toBe(60);
    await setEventRateLimit(stores.metadata, created.project, null);
    expect((await stores.metadata.getProject(created.project.id))?.rateLimitPerMinute).toBeNull();
    await expect(setEventRateLimit(stores.metadata, created.project, -1)).rejects.toThrow(UserInputError);
    await expect(setEventRateLimit(stores.metadata, created.project, 1.5)).rejects.toThrow(/whole number of events per minute/);
    // Beyond a Postgres integer the store would fail with a 500; it is the caller's mistake.
    await expect(setEventRateLimit(stores.metadata, created.project, 3_000_000_000)).rejects.toThrow(
      'the rate limit must be a whole number of events per minute from 0 to 2,147,483,647 (got 3000000000)',
    );
    expect((await stores.metadata.getProject(created.project.id))?.rateLimitPerMinute).toBeNull();
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
});
