import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { createPasswordHasher } from '../auth/password-hash.ts';
import { NotFoundError } from '../errors.ts';
import { changeRole, removeMember } from './members.ts';
import { resumeSession, startSession } from './sessions.ts';
import { createUser } from './users.ts';

let stores: EmbeddedStores;
const passwords = createPasswordHasher({ params: { ln: 10, r: 8, p: 1 } });
let n = 0;
const person = (role: 'owner' | 'admin' | 'member') =>
  createUser({ users: stores.users, passwords }, { email: `p${++n}@example.com`, role, password: 'long enough' });

beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

describe('members', () => {
  it('changes a role, but never demotes the only owner', async () => {
    const owner = await person('owner');
    const admin = await person('admin');
    await expect(changeRole(stores.users, owner.id, 'admin')).rejects.toThrow(
      `"${owner.email}" is the only owner: make another user an owner first`,
    );
    await expect(changeRole(stores.users, admin.id, 'boss')).rejects.toThrow(/unknown role "boss": use owner, admin or member/);
    expect(await changeRole(stores.users, admin.id, 'owner')).toMatchObject({ id: admin.id, role: 'owner' });
    // Two owners now: either may become an admin.
    expect(await changeRole(stores.users, owner.id, 'member')).toMatchObject({ role: 'member' });
    await expect(changeRole(stores.users, 999_999, 'member')).rejects.toThrow(NotFoundError);
  });

  it('leaves one owner when two owners demote each other at the same moment', async () => {
    const [ada, bob] = [await person('owner'), await person('owner')];
    for (const other of await stores.users.listUsers()) {
      if (other.role === 'owner' && other.id !== ada.id && other.id !== bob.id) await changeRole(stores.users, other.id, 'admin');
    }
    const outcomes = await Promise.allSettled([
      changeRole(stores.users, ada.id, 'member'),
      changeRole(stores.users, bob.id, 'admin'),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(String(outcomes.find((outcome) => outcome.status === 'rejected')!.reason)).toMatch(/is the only owner/);
    expect((await stores.users.listUsers()).filter((user) => user.role === 'owner')).toHaveLength(1);
    // And one removing the other while being removed.
    const carl = await person('owner');
    const [owner] = (await stores.users.listUsers()).filter((user) => user.role === 'owner' && user.id !== carl.id);
    const removals = await Promise.allSettled([
      removeMember(stores.users, carl.id, owner!.id),
      removeMember(stores.users, owner!.id, carl.id),
    ]);
    expect(removals.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await stores.users.listUsers()).filter((user) => user.role === 'owner')).toHaveLength(1);
  });

  it('removes someone with their sessions at once, never oneself or the only owner', async () => {
    const owner = await person('owner');
    const member = await person('member');
    const { token } = await startSession(stores.users, member.id, new Date());
    await expect(removeMember(stores.users, owner.id, owner.id)).rejects.toThrow(
      'you cannot remove yourself: another owner can remove you',
    );
    expect(await removeMember(stores.users, owner.id, member.id)).toMatchObject({ id: member.id });
    expect(await resumeSession(stores.users, token, new Date())).toBeUndefined();
    expect(await stores.users.findUser(member.id)).toBeUndefined();
    await expect(removeMember(stores.users, owner.id, member.id)).rejects.toThrow(NotFoundError);
  });
});
