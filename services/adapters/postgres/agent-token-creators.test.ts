// The agent tokens a person made on the dashboard end with that person's removal, or their
// demotion from owner (only owners make them); tokens made with the CLI, or by anyone else, stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';

let stores: EmbeddedStores;
let organizationId: number;
beforeAll(async () => {
  stores = await openEmbeddedStores();
  organizationId = (await stores.metadata.ensureOrganization('default', 'Default')).id;
});
afterAll(() => stores.close());

const person = (email: string) => stores.users.createUser({ email, name: email, role: 'owner', passwordHash: null });
const token = (name: string, createdBy?: number) =>
  stores.metadata.createAgentToken({
    organizationId,
    projectId: null,
    name,
    role: 'admin',
    tokenHash: `hash-${name}`,
    ...(createdBy !== undefined && { createdBy }),
  });
const live = async () =>
  (await stores.metadata.listAgentTokens(organizationId))
    .filter((t) => t.revokedAt === null)
    .map((t) => t.name)
    .sort();

describe('agent tokens and the people who made them', () => {
  it('names the maker, and revokes what they made when they are removed or stop being an owner', async () => {
    const [ada, bob, cy] = [await person('ada@example.com'), await person('bob@example.com'), await person('cy@example.com')];
    await token('ada-ci', ada.id);
    await token('bob-ci', bob.id);
    await token('cy-ci', cy.id);
    await token('from-the-cli');
    const listed = await stores.metadata.listAgentTokens(organizationId);
    expect(Object.fromEntries(listed.map((t) => [t.name, t.createdBy]))).toEqual({
      'ada-ci': 'ada@example.com',
      'bob-ci': 'bob@example.com',
      'cy-ci': 'cy@example.com',
      'from-the-cli': null,
    });

    expect(await stores.users.setRole(ada.id, 'owner')).toMatchObject({ role: 'owner' });
    expect(await live()).toEqual(['ada-ci', 'bob-ci', 'cy-ci', 'from-the-cli']);
    expect(await stores.users.setRole(ada.id, 'admin')).toMatchObject({ role: 'admin' });
    expect(await stores.users.deleteUser(bob.id)).toBe('deleted');
    expect(await live()).toEqual(['cy-ci', 'from-the-cli']);
    expect(await stores.metadata.findAgentToken('hash-bob-ci')).toBeUndefined();
  });

  it('makes no token for a maker who is no longer an owner, or no longer there', async () => {
    const dee = await person('dee@example.com');
    await stores.users.setRole(dee.id, 'admin');
    await expect(token('dee-late', dee.id)).rejects.toThrow(/only owners make agent tokens, and you are no longer one/);
    const eve = await person('eve@example.com');
    await stores.users.deleteUser(eve.id);
    await expect(token('eve-late', eve.id)).rejects.toThrow(/no longer one/);
    expect(await live()).not.toContain('dee-late');
  });
});
