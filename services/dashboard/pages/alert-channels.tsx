// The Alert channels page (/organizations/{org}/alert-channels), for people with the `alerts`
// capability: the organization's webhook channels (name, receiver URL, daily digest) with a
// link to each, and the form that creates one (a name and an https:// URL), which leads to the
// new channel's page.
import type { AlertChannel } from '../../core/alerts/alert-rules.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { RelativeTime } from '../components/time.tsx';
import { digestText } from './channel-parts.ts';
import { Notice, type FormNotice } from './project-parts.tsx';

interface AlertChannelsPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  channels: AlertChannel[];
  href: (...segments: string[]) => string;
  now: Date;
  /** A refused creation: the reason, and what was typed, kept in the form. */
  refused?: { notice: FormNotice; name: string; url: string } | undefined;
}

export function AlertChannelsPage({ assets, csrf, viewer, organization, channels, href, now, refused }: AlertChannelsPageProps) {
  return (
    <AppShell title="Alert channels" assets={assets} organization={organization} current="alert-channels" viewer={viewer} csrf={csrf}>
      <div class="channels">
        <h1>Alert channels</h1>
        <p class="hint">
          A channel is a webhook receiver: alert rules send to it, each request signed with the channel's secret, and it can
          get a daily digest.
        </p>
        {channels.length === 0 ? (
          <p class="empty-state">No channels yet: create one below, then point alert rules at it.</p>
        ) : (
          <div class="table-scroll">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Receiver URL</th>
                  <th scope="col">Daily digest</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {channels.map((channel) => (
                  <tr key={channel.id}>
                    <td>
                      <a href={href('alert-channels', String(channel.id))}>{channel.name}</a>
                    </td>
                    <td class="channel-url">
                      <code>{channel.url}</code>
                    </td>
                    <td>{digestText(channel.digest)}</td>
                    <td>
                      <RelativeTime date={channel.createdAt} now={now} zone={viewer.timeZone} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}

        <section class="channel-section" aria-labelledby="create-heading">
          <h2 id="create-heading">Create a channel</h2>
          <Notice notice={refused?.notice} />
          <form class="channel-form" method="post" action={href('alert-channels')}>
            <CsrfField token={csrf} />
            <div class="field">
              <label for="channel-name">Name</label>
              <input id="channel-name" name="name" type="text" required maxLength={100} placeholder="On-call" value={refused?.name ?? ''} />
            </div>
            <div class="field">
              <label for="channel-url">Receiver URL</label>
              <input
                id="channel-url"
                name="url"
                type="url"
                required
                maxLength={2000}
                placeholder="https://hooks.example.com/errata"
                aria-describedby="channel-url-hint"
                value={refused?.url ?? ''}
              />
            </div>
            <button class="button button-primary" type="submit">
              Create channel
            </button>
            <p id="channel-url-hint" class="hint channel-form-hint">
              An https:// address your receiver answers at. Its signing secret is on the channel's page (Reveal).
            </p>
          </form>
        </section>
      </div>
    </AppShell>
  );
}
