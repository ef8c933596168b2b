// /account: the person's own settings (name, time zone, theme), a password change, their
// sessions with a button ending each, and sign-out. Every form posts with the session's CSRF
// token; a refused form comes back with the reason beside it.
import { THEMES, type Session, type Theme, type User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { exactTime, RelativeTime } from '../components/time.tsx';

export interface AccountNotice {
  /** The form it is about, shown beside it. */
  form: 'profile' | 'password';
  kind: 'saved' | 'error';
  text: string;
}

interface AccountPageProps {
  assets: AssetSet;
  csrf: string;
  user: User;
  sessions: Array<Session & { expiresAt: Date }>;
  currentSessionId: number;
  timeZones: string[];
  now: Date;
  notice?: AccountNotice | undefined;
}

const THEME_LABELS: Record<Theme, string> = { system: 'As the system', light: 'Light', dark: 'Dark' };

function Notice({ notice, form }: { notice: AccountNotice | undefined; form: AccountNotice['form'] }) {
  if (notice?.form !== form) return null;
  return notice.kind === 'error' ? (
    <p class="notice notice-warning" role="alert">
      {notice.text}
    </p>
  ) : (
    <p class="notice" role="status">
      {notice.text}
    </p>
  );
}

export function AccountPage({ assets, csrf, user, sessions, currentSessionId, timeZones, now, notice }: AccountPageProps) {
  const zone = user.timeZone;
  return (
    <AppShell title="Account" assets={assets} viewer={user} csrf={csrf}>
      <div class="account">
        <h1>Your account</h1>
        <dl class="facts">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Role</dt>
          <dd>{user.role}</dd>
        </dl>

        <section class="account-section" aria-labelledby="profile-heading">
          <h2 id="profile-heading">Settings</h2>
          <Notice notice={notice} form="profile" />
          <form class="form" method="post" action="/account">
            <CsrfField token={csrf} />
            <div class="field">
              <label for="name">Name</label>
              <input id="name" name="name" type="text" autocomplete="name" required maxLength={100} value={user.name} />
            </div>
            <div class="field">
              <label for="timeZone">Time zone</label>
              <select id="timeZone" name="timeZone" aria-describedby="timeZone-hint">
                <option value="" selected={zone === null}>
                  The browser's
                </option>
                {timeZones.map((name) => (
                  <option key={name} value={name} selected={name === zone}>
                    {name}
                  </option>
                ))}
              </select>
              <p id="timeZone-hint" class="hint">
                Exact times on every page are shown in this zone.
              </p>
            </div>
            <fieldset class="field choice-group">
              <legend>Theme</legend>
              {THEMES.map((theme) => (
                <label key={theme} class="choice">
                  <input type="radio" name="theme" value={theme} checked={user.theme === theme} />
                  {THEME_LABELS[theme]}
                </label>
              ))}
            </fieldset>
            <button class="button button-primary" type="submit">
              Save settings
            </button>
          </form>
        </section>

        <section class="account-section" aria-labelledby="password-heading">
          <h2 id="password-heading">Password</h2>
          <Notice notice={notice} form="password" />
          <form class="form" method="post" action="/account/password">
            <CsrfField token={csrf} />
            <div class="field">
              <label for="current">Current password</label>
              <input id="current" name="current" type="password" autocomplete="current-password" required />
            </div>
            <div class="field">
              <label for="password">New password</label>
              <input id="password" name="password" type="password" autocomplete="new-password" required minLength={8} />
            </div>
            <div class="field">
              <label for="password2">New password, again</label>
              <input id="password2" name="password2" type="password" autocomplete="new-password" required minLength={8} />
            </div>
            <button class="button" type="submit">
              Change password
            </button>
          </form>
        </section>

        <section class="account-section" aria-labelledby="sessions-heading">
          <h2 id="sessions-heading">Sessions</h2>
          <div class="table-scroll">
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
                    <td>
                      <RelativeTime date={session.createdAt} now={now} zone={zone} />
                    </td>
                    <td>{session.id === currentSessionId ? 'This session' : <RelativeTime date={session.lastSeenAt} now={now} zone={zone} />}</td>
                    <td class="session-agent">{session.userAgent ?? 'unknown'}</td>
                    <td>{session.address ?? 'unknown'}</td>
                    <td>
                      <RelativeTime date={session.expiresAt} now={now} zone={zone} />
                    </td>
                    <td>
                      <form method="post" action="/account/sessions/end">
                        <CsrfField token={csrf} />
                        <input type="hidden" name="session" value={String(session.id)} />
                        <button class="button" type="submit" aria-label={`End the session signed in ${exactTime(session.createdAt, zone)}`}>
                          End
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <form class="sign-out" method="post" action="/logout">
            <CsrfField token={csrf} />
            <button class="button" type="submit">
              Sign out
            </button>
          </form>
        </section>
      </div>
    </AppShell>
  );
}
