// What an owner does to other people on the Members page: change a role, remove someone. The
// change is read on the person's next request (a session looks its user up each time), and a
// removal deletes the person with their sessions, so it signs them out at once. The only owner
// is never demoted or removed, so someone can always manage people.
import { ConflictError, NotFoundError, UserInputError } from '../errors.ts';
import type { User, UserStore } from '../ports/user-store.ts';
import { checkRole, onlyOwner } from './users.ts';

async function findPerson(users: UserStore, id: number): Promise<User> {
  const user = await users.findUser(id);
  if (!user) throw new NotFoundError('no such person: they may have been removed already; the Members page lists who is left');
  return user;
}

export async function changeRole(users: UserStore, userId: number, role: string): Promise<User> {
  const newRole = checkRole(role);
  const user = await findPerson(users, userId);
  const changed = await users.setRole(user.id, newRole);
  if (changed === 'only-owner') throw onlyOwner(user);
  if (!changed) throw new NotFoundError('no such person: they were removed meanwhile');
  return changed;
}

/** Removes someone else; a person leaves only by another owner's hand. */
export async function removeMember(users: UserStore, actorId: number, userId: number): Promise<User> {
  if (actorId === userId) throw new UserInputError('you cannot remove yourself: another owner can remove you');
  const user = await findPerson(users, userId);
  const outcome = await users.deleteUser(user.id);
  if (outcome === 'only-owner') throw onlyOwner(user);
  if (outcome === 'missing') throw new ConflictError('this person was removed meanwhile');
  return user;
}
