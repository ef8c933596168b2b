// /account: who is signed in (name, email, role), their sessions with a button ending each, and
// sign-out. Every form posts with the session's CSRF token.
import type { Session, User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';

interface AccountPageProps {
  assets: AssetSet;
  csrf: string;
  user: User;
  sessions: Array<Session & { expiresAt: Date }>;
  currentSessionId: number;
  notice?: string | undefined;
}

const when = (date: Date) => date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

export function AccountPage({ assets, csrf, user, sessions, currentSessionId, notice }: AccountPageProps) {
  return (
    <AppShell title="Account" assets={assets}>
      <h1>Your account</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <dl class="facts">
        <dt>Name</dt>
        <dd>{user.name}</dd>
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
      </dl>
      <form class="sign-out" method="post" action="/logout">
        <CsrfField token={csrf} />
        <button class="button" type="submit">
          Sign out
        </button>
      </form>
      <h2>Sessions</h2>
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Signed in</th>
            <th scope="col">Last seen</th>
            <th scope="col">Browser</th>
            <th scope="col">Address</th>
            <th scope="col">Ends</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.id}>
              <td>{when(session.createdAt)}</td>
              <td>{session.id === currentSessionId ? 'This session' : when(session.lastSeenAt)}</td>
              <td>{session.userAgent ?? 'unknown'}</td>
              <td>{session.address ?? 'unknown'}</td>
              <td>{when(session.expiresAt)}</td>
              <td>
                <form method="post" action="/account/sessions/end">
                  <CsrfField token={csrf} />
                  <input type="hidden" name="session" value={String(session.id)} />
                  <button class="button" type="submit" aria-label={`End the session signed in ${when(session.createdAt)}`}>
                    End
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </AppShell>
  );
}
