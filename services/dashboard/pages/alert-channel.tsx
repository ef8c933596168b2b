// An alert channel's page (/organizations/{org}/alert-channels/{id}), the page every alert's
// `url` about a channel opens (core/alerts/alert-payload.ts dashboardUrls.channel), for people
// with the `alerts` capability: its settings, the signing secret (Reveal and Rotate show it in
// the answer to their POST only, never on a GET), Send test, the deliveries log with each
// attempt, the form that changes its name, URL and daily digest, and a verification snippet.
import type { AlertChannel } from '../../core/alerts/alert-rules.ts';
import { SIGNATURE_HEADER } from '../../core/alerts/webhook-signature.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { RelativeTime } from '../components/time.tsx';
import { DeliveryLog } from './channel-deliveries.tsx';
import { verificationSnippet } from './channel-snippet.ts';
import { digestText, hourText, type ChannelDelivery } from './channel-parts.ts';
import { CopyBox, Notice, type FormNotice } from './project-parts.tsx';

/** What the settings form shows: the channel's values, or what was typed into a refused form. */
export interface ChannelFields {
  name: string;
  url: string;
  /** '' for no digest, else 0-23. */
  hour: string;
  timeZone: string;
}

interface AlertChannelPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  channel: AlertChannel;
  deliveries: ChannelDelivery[];
  href: (...segments: string[]) => string;
  now: Date;
  /** The secret, in the answer to Reveal or Rotate only. */
  secret?: { value: string; rotated: boolean } | undefined;
  notice?: FormNotice | undefined;
  /** A refused settings form: its reason and what was typed. */
  refused?: { notice: FormNotice; typed: ChannelFields } | undefined;
}

const HOURS = Array.from({ length: 24 }, (_, hour) => hour);

export function AlertChannelPage(props: AlertChannelPageProps) {
  const { assets, csrf, viewer, organization, channel, deliveries, href, now, secret, notice, refused } = props;
  const base = href('alert-channels', String(channel.id));
  const fields: ChannelFields = refused?.typed ?? {
    name: channel.name,
    url: channel.url,
    hour: channel.digest ? String(channel.digest.hour) : '',
    timeZone: channel.digest?.timeZone ?? viewer.timeZone ?? 'UTC',
  };
  return (
    <AppShell title={`${channel.name} · Alert channels`} assets={assets} organization={organization} current="alert-channels" viewer={viewer} csrf={csrf}>
      <div class="channels">
        <nav class="breadcrumb" aria-label="Breadcrumb">
          <a href={href('alert-channels')}>Alert channels</a>
          <span aria-hidden="true"> / </span>
          <span aria-current="page">{channel.name}</span>
        </nav>
        <h1>{channel.name}</h1>
        <Notice notice={notice} />
        <dl class="facts">
          <dt>Receiver URL</dt>
          <dd class="channel-url">
            <code>{channel.url}</code>
          </dd>
          <dt>Daily digest</dt>
          <dd>{digestText(channel.digest)}</dd>
          <dt>Created</dt>
          <dd>
            <RelativeTime date={channel.createdAt} now={now} zone={viewer.timeZone} />
          </dd>
        </dl>

        <section class="channel-section" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Signing secret</h2>
          <p class="hint">
            Every request carries <code>{SIGNATURE_HEADER}</code>, an HMAC-SHA256 of its body keyed with this secret. Rotate
            replaces it at once: every attempt from then on, queued retries included, is signed with the new one.
          </p>
          {secret && (
            <div class="channel-secret">
              <p class="notice notice-warning" role="status">
                {secret.rotated ? 'The secret is rotated: give your receiver this new one. ' : ''}
                It is shown in this answer only; reloading the page will not show it again.
              </p>
              <CopyBox id="signing-secret" text={secret.value} what="the signing secret" />
            </div>
          )}
          <div class="channel-actions">
            <form method="post" action={`${base}/reveal`}>
              <CsrfField token={csrf} />
              <button class="button" type="submit">
                Reveal
              </button>
            </form>
            <form method="post" action={`${base}/rotate`}>
              <CsrfField token={csrf} />
              <button class="button" type="submit">
                Rotate
              </button>
            </form>
          </div>
        </section>

        <section class="channel-section" aria-labelledby="deliveries-heading">
          <div class="channel-section-top">
            <h2 id="deliveries-heading">Deliveries</h2>
            <form method="post" action={`${base}/test`}>
              <CsrfField token={csrf} />
              <button class="button button-primary" type="submit">
                Send test
              </button>
            </form>
          </div>
          <DeliveryLog deliveries={deliveries} pollHref={`${base}/deliveries`} now={now} zone={viewer.timeZone} />
        </section>

        <section class="channel-section" aria-labelledby="settings-heading">
          <h2 id="settings-heading">Settings</h2>
          <Notice notice={refused?.notice} />
          <form class="channel-form" method="post" action={base}>
            <CsrfField token={csrf} />
            <div class="field">
              <label for="channel-name">Name</label>
              <input id="channel-name" name="name" type="text" required maxLength={100} value={fields.name} />
            </div>
            <div class="field">
              <label for="channel-url">Receiver URL</label>
              <input id="channel-url" name="url" type="url" required maxLength={2000} value={fields.url} />
            </div>
            <div class="field">
              <label for="digest-hour">Daily digest</label>
              <select id="digest-hour" name="hour" aria-describedby="digest-hint">
                <option value="" selected={fields.hour === ''}>
                  Off
                </option>
                {HOURS.map((hour) => (
                  <option key={hour} value={String(hour)} selected={fields.hour === String(hour)}>
                    {`Every day at ${hourText(hour)}`}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="digest-zone">Time zone</label>
              <input id="digest-zone" name="timeZone" type="text" maxLength={100} placeholder="Europe/Berlin" value={fields.timeZone} />
            </div>
            <button class="button button-primary" type="submit">
              Save
            </button>
            <p id="digest-hint" class="hint channel-form-hint">
              The digest sums up the day's issues per project, sent at that hour in the time zone (an IANA name such as
              Europe/Berlin or UTC).
            </p>
          </form>
        </section>

        <section class="channel-section" aria-labelledby="verify-heading">
          <h2 id="verify-heading">Verifying requests</h2>
          <p class="hint">
            In the receiver (Node, no dependencies): refuse a request unless this returns true for its raw body.
          </p>
          <CopyBox id="verify-snippet" text={verificationSnippet()} what="the verification snippet" multiline />
        </section>
      </div>
    </AppShell>
  );
}
