// The upload tokens a person made on the dashboard end with that person's removal, or their
// demotion to member (owners and admins make them); tokens made with the CLI, or by anyone else,
// stay. Before, a removed admin's upload token still uploaded source maps to their project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';

let stores: EmbeddedStores;
let organizationId: number;
let projectId: number;
beforeAll(async () => {
  stores = await openEmbeddedStores();
  organizationId = (await stores.metadata.ensureOrganization('default', 'Default')).id;
  ({
    project: { id: projectId },
  } = await stores.metadata.createProject(
    { organizationId, slug: 'web', name: 'Web' },
    { publicKey: 'k'.repeat(32), label: 'Default' },
  ));
});
afterAll(() => stores.close());

const person = (email: string, role: 'owner' | 'admin' = 'admin') =>
  stores.users.createUser({ email, name: email, role, passwordHash: null });
const token = (name: string, createdBy?: number) =>
  stores.metadata.createUploadToken({
    organizationId,
    projectId,
    name,
    tokenHash: `upload-hash-${name}`,
    ...(createdBy !== undefined && { createdBy }),
  });
const live = async () =>
  (await stores.metadata.listUploadTokens(organizationId))
    .filter((t) => t.revokedAt === null)
    .map((t) => t.name)
    .sort();

describe('upload tokens and the people who made them', () => {
  it('names the maker, and revokes what they made when they are removed or become a member', async () => {
    await person('owner@example.com', 'owner'); // one owner stays
    const ada = await person('ada@example.com', 'owner');
    const [bob, cy, dan] = [await person('bob@example.com'), await person('cy@example.com'), await person('dan@example.com')];
    for (const [name, maker] of [
      ['ada-ci', ada],
      ['bob-ci', bob],
      ['cy-ci', cy],
      ['dan-ci', dan],
    ] as const)
      await token(name, maker.id);
    await token('from-the-cli');
    const listed = await stores.metadata.listUploadTokens(organizationId);
    expect(Object.fromEntries(listed.map((t) => [t.name, t.createdBy]))).toEqual({
      'ada-ci': 'ada@example.com',
      'bob-ci': 'bob@example.com',
      'cy-ci': 'cy@example.com',
      'dan-ci': 'dan@example.com',
      'from-the-cli': null,
    });

    // An owner who becomes an admin may still make them: theirs stay.
    expect(await stores.users.setRole(ada.id, 'admin')).toMatchObject({ role: 'admin' });
    expect(await stores.users.setRole(cy.id, 'admin')).toMatchObject({ role: 'admin' });
    expect(await live()).toEqual(['ada-ci', 'bob-ci', 'cy-ci', 'dan-ci', 'from-the-cli']);

    expect(await stores.users.deleteUser(bob.id)).toBe('deleted');
    expect(await stores.users.setRole(dan.id, 'member')).toMatchObject({ role: 'member' });
    expect(await live()).toEqual(['ada-ci', 'cy-ci', 'from-the-cli']);
    expect(await stores.metadata.findUploadToken('upload-hash-bob-ci')).toBeUndefined();
    expect(await stores.metadata.findUploadToken('upload-hash-dan-ci')).toBeUndefined();
  });

  it('makes no token for a maker who is a member now, or no longer there', async () => {
    const eve = await person('eve@example.com');
    await stores.users.setRole(eve.id, 'member');
    await expect(token('eve-late', eve.id)).rejects.toThrow(
      /only owners and admins make upload tokens, and you are no longer one/,
    );
    const fay = await person('fay@example.com');
    await stores.users.deleteUser(fay.id);
    await expect(token('fay-late', fay.id)).rejects.toThrow(/no longer one/);
    expect(await live()).not.toContain('eve-late');
  });
});
