// The Members page (/organizations/{org}/settings/members), for owners (the `members`
// capability): the people who sign in, each with their role (changeable) and when a session of
// theirs was last seen, a Remove button for everyone but the viewer; pending invitations with a
// Revoke button; and the form that makes an invitation link. Right after that form, the page
// also carries the link, once (members-parts.tsx). People belong to the installation: a role
// holds in every organization.
import { HUMAN_ROLES } from '../../core/auth/capabilities.ts';
import type { Invitation, User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { SettingsNav } from '../components/settings-nav.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { RelativeTime } from '../components/time.tsx';
import { InvitationTable, InvitedLink, ROLE_MEANINGS, type NewInvitation } from './members-parts.tsx';
import { Notice, type FormNotice } from './project-parts.tsx';

/** What a refused invitation form had typed, kept in its fields. */
export interface TypedInvitation {
  role: string;
  email: string;
}

interface MembersPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  people: User[];
  lastSeen: Map<number, Date>;
  invitations: Invitation[];
  href: (...segments: string[]) => string;
  now: Date;
  invited?: NewInvitation | undefined;
  /** The invitation form's refusal, shown above it. */
  inviteNotice?: FormNotice | undefined;
  typed?: TypedInvitation | undefined;
  /** What a change to people or invitations answered (done, or why not), shown above the people. */
  notice?: FormNotice | undefined;
}

export function MembersPage(props: MembersPageProps) {
  const { assets, csrf, viewer, organization, people, invitations, href, now, invited, inviteNotice, typed, notice } = props;
  const base = href('settings', 'members');
  const named = new Map(people.map((person) => [person.id, person]));
  return (
    <AppShell title="Members" assets={assets} organization={organization} current="settings" viewer={viewer} csrf={csrf}>
      <div class="settings">
        <SettingsNav href={href} role={viewer.role} current="members" />
        <h1>Members</h1>
        <p class="hint">
          The people who sign in to this Errata. A role holds in every organization here, and a change applies from the person's
          next click; a removed person is signed out at once.
        </p>

        {invited && <InvitedLink invited={invited} now={now} zone={viewer.timeZone} doneHref={base} />}

        <section class="settings-section" aria-labelledby="invite-heading">
          <h2 id="invite-heading">Invite someone</h2>
          <Notice notice={inviteNotice} />
          <form class="invite-form" method="post" action={`${base}/invitations`}>
            <CsrfField token={csrf} />
            <div class="field">
              <label for="invite-role">Role</label>
              <select id="invite-role" name="role" aria-describedby="invite-role-hint">
                {HUMAN_ROLES.map((role) => (
                  <option key={role} value={role} selected={role === (typed?.role ?? 'member')}>
                    {role}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="invite-email">
                Email <span class="muted">(optional)</span>
              </label>
              <input
                id="invite-email"
                name="email"
                type="email"
                maxLength={254}
                placeholder="ada@example.com"
                aria-describedby="invite-email-hint"
                value={typed?.email ?? ''}
              />
            </div>
            <button class="button button-primary" type="submit">
              Create invitation link
            </button>
            <p id="invite-email-hint" class="hint invite-form-hint">
              No mail is sent: you get a link to pass on, which works once, for 7 days. An email given here is filled in on its
              form.
            </p>
            <ul id="invite-role-hint" class="hint invite-form-hint">
              {HUMAN_ROLES.map((role) => (
                <li key={role}>
                  <strong>{role}</strong>: {ROLE_MEANINGS[role]}
                </li>
              ))}
            </ul>
          </form>
        </section>

        <section class="settings-section" aria-labelledby="people-heading">
          <h2 id="people-heading">People</h2>
          <Notice notice={notice} />
          <div class="table-scroll">
            <table class="table members-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Last active</th>
                  <th scope="col">
                    <span class="visually-hidden">Remove</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {people.map((person) => (
                  <PersonRow
                    key={person.id}
                    person={person}
                    self={person.id === viewer.id}
                    {...{ csrf, base, now }}
                    lastSeen={props.lastSeen.get(person.id)}
                    zone={viewer.timeZone}
                  />
                ))}
              </tbody>
            </table>
          </div>
          <p class="hint members-hint">Last active is when a session of theirs last made a request, to the minute.</p>
        </section>

        <section class="settings-section" aria-labelledby="invitations-heading">
          <h2 id="invitations-heading">Pending invitations</h2>
          {invitations.length === 0 ? (
            <p class="muted">No pending invitation.</p>
          ) : (
            <InvitationTable
              invitations={invitations}
              named={named}
              csrf={csrf}
              revokeHref={`${base}/invitations/revoke`}
              now={now}
              zone={viewer.timeZone}
            />
          )}
        </section>
      </div>
    </AppShell>
  );
}

interface PersonRowProps {
  person: User;
  self: boolean;
  csrf: string;
  base: string;
  now: Date;
  lastSeen: Date | undefined;
  zone: string | null;
}

function PersonRow({ person, self, csrf, base, now, lastSeen, zone }: PersonRowProps) {
  const roleId = `role-${person.id}`;
  return (
    <tr>
      <td class="member-name">
        {person.name}
        {self && <span class="badge member-you">you</span>}
      </td>
      <td class="member-email">{person.email}</td>
      <td>
        <form class="member-role-form" method="post" action={`${base}/role`}>
          <CsrfField token={csrf} />
          <input type="hidden" name="user" value={String(person.id)} />
          <label class="visually-hidden" for={roleId}>{`Role of ${person.email}`}</label>
          <select id={roleId} name="role">
            {HUMAN_ROLES.map((role) => (
              <option key={role} value={role} selected={role === person.role}>
                {role}
              </option>
            ))}
          </select>
          <button class="button button-small" type="submit">
            Change<span class="visually-hidden">{` the role of ${person.email}`}</span>
          </button>
        </form>
      </td>
      <td>{lastSeen ? <RelativeTime date={lastSeen} now={now} zone={zone} /> : <span class="muted">Not signed in</span>}</td>
      <td class="row-link">
        {!self && (
          <form method="post" action={`${base}/remove`}>
            <CsrfField token={csrf} />
            <input type="hidden" name="user" value={String(person.id)} />
            <button class="button button-small button-danger" type="submit">
              Remove<span class="visually-hidden">{` ${person.email}`}</span>
            </button>
          </form>
        )}
      </td>
    </tr>
  );
}
