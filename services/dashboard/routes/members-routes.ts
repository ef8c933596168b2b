// The Members page and its forms, for owners only (the `members` capability, checked on every
// GET and POST): invite (POST .../invitations answers 201 with the link, once: the answer is
// no-store like every page and never redirected to), revoke an invitation, change a role, remove
// a person. The rules are core/people's; a refused change shows the page again saying why.
import { h } from 'preact';
import { can } from '../../core/auth/capabilities.ts';
import { ConflictError, NotFoundError, UserInputError } from '../../core/errors.ts';
import { redirectNotice } from '../redirect-notice.ts';
import { invitationLink, invite, revokeInvitation } from '../../core/people/invitations.ts';
import { changeRole, removeMember } from '../../core/people/members.ts';
import { ERROR_STATUS } from '../../runtime/http.ts';
import { isRowId } from '../../core/row-id.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import type { NewInvitation } from '../pages/members-parts.tsx';
import { MembersPage, type TypedInvitation } from '../pages/members.tsx';
import type { FormNotice } from '../pages/project-parts.tsx';

interface Shown {
  invited?: NewInvitation;
  inviteNotice?: FormNotice;
  typed?: TypedInvitation;
  notice?: FormNotice;
}

/** What a change redirected with (?done=...) says: fixed texts, nothing taken from the address. */
const DONE: Record<string, string> = {
  role: 'Role changed: it applies from their next click.',
  removed: 'Removed: they are signed out and cannot sign in again, and the tokens they made are revoked.',
  // Single sign-on that creates accounts would make theirs again at their next sign-in.
  'removed-sso':
    'Removed: they are signed out. Single sign-on creates accounts here, so they can sign in again while the provider still grants them a role: remove them from its group too.',
  revoked: 'Invitation revoked: its link no longer works.',
};

async function membersPage(page: OrganizationPage, status: number, shown: Shown = {}): Promise<void> {
  const now = page.now();
  const { users } = page.deps;
  const [people, lastSeen, invitations] = await Promise.all([
    users.listUsers(),
    users.lastSeenByUser(),
    users.listInvitations(now),
  ]);
  const done = page.ctx.method === 'GET' ? redirectNotice(page.ctx, 'done', DONE) : undefined;
  page.send(
    status,
    h(MembersPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      people,
      lastSeen,
      invitations,
      href: page.href,
      now,
      invited: shown.invited,
      inviteNotice: shown.inviteNotice,
      typed: shown.typed,
      notice: shown.notice ?? (done ? { kind: 'saved', text: done } : undefined),
    }),
  );
}

/** The posted form of an owner, or undefined once a refusal page is sent. */
async function ownersForm(page: OrganizationPage): Promise<URLSearchParams | undefined> {
  page.require('members');
  return page.form();
}

/** The id in a hidden field; anything else did not come from our buttons. */
function idField(form: URLSearchParams, name: string, what: string): number {
  const value = form.get(name) ?? '';
  if (!/^[1-9]\d{0,9}$/.test(value) || !isRowId(Number(value)))
    throw new UserInputError(`no ${what} was named: use the buttons beside it on the Members page`);
  return Number(value);
}

/** A refused change: the page again, its reason above the list, with the error's status. */
async function refused(
  page: OrganizationPage,
  error: unknown,
  where: 'notice' | 'inviteNotice' = 'notice',
  typed?: TypedInvitation,
) {
  if (!(error instanceof UserInputError || error instanceof ConflictError || error instanceof NotFoundError)) throw error;
  const notice: FormNotice = { kind: 'error', text: sentence(error.message) };
  await membersPage(page, ERROR_STATUS[error.code], { [where]: notice, typed });
}

const MEMBERS = /^settings\/members$/;

export const membersRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: MEMBERS,
    async handle(page) {
      page.require('members');
      await membersPage(page, 200);
    },
  },
  {
    method: 'POST',
    path: /^settings\/members\/invitations$/,
    async handle(page) {
      const form = await ownersForm(page);
      if (!form) return;
      const typed = { role: form.get('role') ?? '', email: form.get('email') ?? '' };
      try {
        const { code, invitation } = await invite(page.deps.users, { ...typed, invitedBy: page.viewer.id }, page.now());
        await membersPage(page, 201, { invited: { link: invitationLink(page.deps.baseUrl, code), invitation } });
      } catch (error) {
        await refused(page, error, 'inviteNotice', typed);
      }
    },
  },
  {
    method: 'POST',
    path: /^settings\/members\/invitations\/revoke$/,
    async handle(page) {
      const form = await ownersForm(page);
      if (!form) return;
      try {
        await revokeInvitation(page.deps.users, idField(form, 'invitation', 'invitation'));
      } catch (error) {
        return refused(page, error);
      }
      page.seeOther(`${page.href('settings', 'members')}?done=revoked`);
    },
  },
  {
    method: 'POST',
    path: /^settings\/members\/role$/,
    async handle(page) {
      const form = await ownersForm(page);
      if (!form) return;
      let changed;
      try {
        changed = await changeRole(page.deps.users, idField(form, 'user', 'person'), form.get('role') ?? '');
      } catch (error) {
        return refused(page, error);
      }
      // An owner who made themself an admin or member may no longer see this page.
      if (changed.id === page.viewer.id && !can({ kind: 'user', role: changed.role }, 'members'))
        return page.seeOther(page.href('issues'));
      page.seeOther(`${page.href('settings', 'members')}?done=role`);
    },
  },
  {
    method: 'POST',
    path: /^settings\/members\/remove$/,
    async handle(page) {
      const form = await ownersForm(page);
      if (!form) return;
      try {
        await removeMember(page.deps.users, page.viewer.id, idField(form, 'user', 'person'));
      } catch (error) {
        return refused(page, error);
      }
      page.seeOther(`${page.href('settings', 'members')}?done=${page.deps.oidc?.createUsers ? 'removed-sso' : 'removed'}`);
    },
  },
];

/** core's messages start lower-case and end bare; the page shows them as sentences. */
function sentence(message: string): string {
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`;
}
