// Pieces of the Members page: what each role may do, the one-time panel with a new invitation's
// link (shown in the POST's answer only, like an agent token's plaintext) and the table of
// pending invitations.
import type { HumanRole } from '../../core/auth/capabilities.ts';
import type { Invitation, User } from '../../core/ports/user-store.ts';
import { CsrfField } from '../components/auth-card.tsx';
import { exactTime, RelativeTime } from '../components/time.tsx';
import { CopyBox } from './project-parts.tsx';

/** The README's words for the roles, beside the form that grants one. */
export const ROLE_MEANINGS: Record<HumanRole, string> = {
  owner: 'everything an admin does, and manages people and agent tokens',
  admin: 'everything a member does, and deletes issues and manages projects, DSN keys and alerts',
  member: 'reads and triages issues (resolve, ignore, snooze)',
};

/** What the page shows the one time an invitation's link exists. */
export interface NewInvitation {
  link: string;
  invitation: Invitation;
}

export function InvitedLink({
  invited,
  now,
  zone,
  doneHref,
}: {
  invited: NewInvitation;
  now: Date;
  zone: string | null;
  doneHref: string;
}) {
  const { invitation, link } = invited;
  const forWhom = invitation.email ? ` for ${invitation.email}` : '';
  return (
    <section class="token-minted" aria-labelledby="invited-heading">
      <h2 id="invited-heading">{`Invitation${forWhom} as ${invitation.role} created: copy the link now`}</h2>
      <p class="notice notice-warning" role="status">
        This is the only time the link is shown: Errata keeps only its hash. Pass it on privately; whoever opens it first joins as{' '}
        {invitation.role}. It works once, for 7 days (until {exactTime(invitation.expiresAt, zone)}
        ). A lost link is revoked below and replaced.
      </p>
      <CopyBox id="invitation-link" text={link} what="the invitation link" />
      <p class="hint">
        Expires <RelativeTime date={invitation.expiresAt} now={now} zone={zone} />.
      </p>
      <a class="button" href={doneHref}>
        Done, I have copied it
      </a>
    </section>
  );
}

interface InvitationTableProps {
  invitations: Invitation[];
  /** People by id, to name who invited. */
  named: Map<number, User>;
  csrf: string;
  revokeHref: string;
  now: Date;
  zone: string | null;
}

export function InvitationTable({ invitations, named, csrf, revokeHref, now, zone }: InvitationTableProps) {
  return (
    <div class="table-scroll">
      <table class="table members-table">
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col">For</th>
            <th scope="col">Invited by</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span class="visually-hidden">Revoke</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {invitations.map((invitation) => {
            const what = `the ${invitation.role} invitation${invitation.email ? ` for ${invitation.email}` : ''} of ${exactTime(invitation.createdAt, zone)}`;
            return (
              <tr key={invitation.id}>
                <td>
                  <span class="badge">{invitation.role}</span>
                </td>
                <td class="member-email">{invitation.email ?? <span class="muted">Whoever opens the link</span>}</td>
                <td>{named.get(invitation.invitedBy)?.name ?? ''}</td>
                <td>
                  <RelativeTime date={invitation.createdAt} now={now} zone={zone} />
                </td>
                <td>
                  <RelativeTime date={invitation.expiresAt} now={now} zone={zone} />
                </td>
                <td class="row-link">
                  <form method="post" action={revokeHref}>
                    <CsrfField token={csrf} />
                    <input type="hidden" name="invitation" value={String(invitation.id)} />
                    <button class="button button-small button-danger" type="submit">
                      Revoke<span class="visually-hidden">{` ${what}`}</span>
                    </button>
                  </form>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
