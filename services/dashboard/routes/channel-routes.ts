// The Alert channels pages (/organizations/{org}/alert-channels/...): the list with the form
// creating a channel, a channel's page, and its forms (settings, Reveal, Rotate, Send test).
// Each calls the operation the management API and the CLI call (core/alerts/alert-management.ts),
// and every page and form needs the `alerts` capability (admin, owner), checked here. The
// signing secret is only ever in the answer to a POST (Reveal, Rotate), sent with no-store.
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import * as manage from '../../core/alerts/alert-management.ts';
import type { AlertChannel } from '../../core/alerts/alert-rules.ts';
import { ConflictError, NotFoundError, UserInputError } from '../../core/errors.ts';
import { redirectNotice } from '../redirect-notice.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { AlertChannelPage, type ChannelFields } from '../pages/alert-channel.tsx';
import { AlertChannelsPage } from '../pages/alert-channels.tsx';
import { DeliveryLog } from '../pages/channel-deliveries.tsx';
import type { FormNotice } from '../pages/project-parts.tsx';
import { isRowId } from '../../core/row-id.ts';

/** How many deliveries the log shows, newest first. */
const LOGGED_DELIVERIES = 50;

/** What a redirect's ?saved= says on the page it lands on. */
const SAVED: Record<string, string> = {
  created: 'The channel is created. Reveal its signing secret for your receiver, then Send test.',
  saved: 'The settings are saved.',
  test: 'A test delivery is queued: the log below shows it as it is sent.',
  'test-waiting': 'A test delivery is already waiting to be sent, and a channel gets one at a time: the log below shows it.',
};

const LABELS: Record<string, string> = {
  name: 'name',
  url: 'URL',
  'digest.hour': 'digest hour',
  'digest.timeZone': 'time zone',
  digest: 'digest',
};

/**
 * The reason a channel form was refused, from the domain's message (which names the API's JSON
 * shape, meaningless on a form): "invalid channel change; send ...: url: url must start with
 * https://" becomes "The URL must start with https://".
 */
function formProblem(message: string): string {
  const rest = message.replace(/^invalid channel(?: change)?(?:; send [^{]*\{.*\})?: /s, '');
  const match = /^(name|url|digest\.hour|digest\.timeZone|digest): (.*)$/s.exec(rest);
  if (!match) return rest.charAt(0).toUpperCase() + rest.slice(1);
  const [, field, text] = match as unknown as [string, string, string];
  const label = LABELS[field]!;
  const word = field.split('.').pop()!;
  return text.startsWith(`${word} `) ? `The ${label}${text.slice(word.length)}` : `The ${label} was refused: ${text}`;
}

/** A channel id from the address; anything else is no channel at all. */
async function channelOf(page: OrganizationPage, raw: string): Promise<AlertChannel> {
  const id = Number(raw);
  if (!isRowId(id)) {
    throw new NotFoundError(
      `no alert channel ${raw.slice(0, 20)} in ${page.organization.slug}: the Alert channels page lists them`,
    );
  }
  return manage.channelOf(page.deps, page.organization, id);
}

async function listPage(page: OrganizationPage, status: number, refused?: { notice: FormNotice; name: string; url: string }) {
  page.send(
    status,
    h(AlertChannelsPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      channels: await page.deps.alerts.listChannels(page.organization.id),
      href: page.href,
      now: page.now(),
      refused,
    }),
  );
}

interface ChannelPageExtras {
  secret?: { value: string; rotated: boolean };
  refused?: { notice: FormNotice; typed: ChannelFields };
}

async function channelPage(page: OrganizationPage, channel: AlertChannel, status: number, extras: ChannelPageExtras = {}) {
  const { deliveries } = await manage.listChannelDeliveries(page.deps, page.organization, channel.id, LOGGED_DELIVERIES);
  const saved = redirectNotice(page.ctx, 'saved', SAVED);
  // The log changes by the second and a secret must never be kept by a cache.
  page.ctx.set('Cache-Control', 'no-store');
  page.send(
    status,
    h(AlertChannelPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      channel,
      deliveries,
      href: page.href,
      now: page.now(),
      secret: extras.secret,
      notice: saved && !extras.secret && !extras.refused ? { kind: 'saved', text: saved } : undefined,
      refused: extras.refused,
    }),
  );
}

/** A form field as text ('' when absent). */
const field = (form: URLSearchParams, name: string) => form.get(name) ?? '';

/** The settings form as the domain's change: an empty hour turns the digest off. */
function changeOf(typed: ChannelFields) {
  const hour = typed.hour.trim();
  return {
    name: typed.name,
    url: typed.url.trim(),
    digest: hour === '' ? null : { hour: /^\d{1,2}$/.test(hour) ? Number(hour) : hour, timeZone: typed.timeZone.trim() },
  };
}

const channelPath = /^alert-channels\/(\d{1,12})$/;
const channelAction = (action: string) => new RegExp(`^alert-channels\\/(\\d{1,12})\\/${action}$`);

export const channelRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: /^alert-channels$/,
    async handle(page) {
      page.require('alerts');
      await listPage(page, 200);
    },
  },
  {
    method: 'POST',
    path: /^alert-channels$/,
    async handle(page) {
      page.require('alerts');
      const form = await page.form();
      if (!form) return;
      const name = field(form, 'name');
      const url = field(form, 'url').trim();
      try {
        const created = await manage.createChannel(page.deps, page.organization, { name, type: 'webhook', url });
        page.seeOther(`${page.href('alert-channels', String(created.channel.id))}?saved=created`);
      } catch (error) {
        if (!(error instanceof UserInputError)) throw error;
        await listPage(page, 400, { notice: { kind: 'error', text: formProblem(error.message) }, name, url });
      }
    },
  },
  {
    method: 'GET',
    path: channelPath,
    async handle(page, [id]) {
      page.require('alerts');
      await channelPage(page, await channelOf(page, id!), 200);
    },
  },
  {
    method: 'POST',
    path: channelPath,
    async handle(page, [id]) {
      page.require('alerts');
      const channel = await channelOf(page, id!);
      const form = await page.form();
      if (!form) return;
      const typed: ChannelFields = {
        name: field(form, 'name'),
        url: field(form, 'url'),
        hour: field(form, 'hour'),
        timeZone: field(form, 'timeZone'),
      };
      try {
        await manage.updateChannel(page.deps, page.organization, channel.id, changeOf(typed));
      } catch (error) {
        if (!(error instanceof UserInputError)) throw error;
        return channelPage(page, channel, 400, {
          refused: { notice: { kind: 'error', text: formProblem(error.message) }, typed },
        });
      }
      page.seeOther(`${page.href('alert-channels', String(channel.id))}?saved=saved`);
    },
  },
  {
    // The deliveries log alone, which the channel's page polls while one is pending; a plain GET goes to the page.
    method: 'GET',
    path: channelAction('deliveries'),
    async handle(page, [id]) {
      page.require('alerts');
      const channel = await channelOf(page, id!);
      const base = page.href('alert-channels', String(channel.id));
      if (!page.partial) return page.seeOther(base);
      const { deliveries } = await manage.listChannelDeliveries(page.deps, page.organization, channel.id, LOGGED_DELIVERIES);
      const log = h(DeliveryLog, { deliveries, pollHref: `${base}/deliveries`, now: page.now(), zone: page.viewer.timeZone });
      page.ctx.status = 200;
      page.ctx.type = 'text/html; charset=utf-8';
      page.ctx.set('Cache-Control', 'no-store');
      page.ctx.body = renderToString(log);
    },
  },
  {
    method: 'POST',
    path: channelAction('reveal'),
    async handle(page, [id]) {
      page.require('alerts');
      const channel = await channelOf(page, id!);
      if (!(await page.form())) return;
      const { signingSecret } = await manage.revealChannelSecret(page.deps, page.organization, channel.id);
      await channelPage(page, channel, 200, { secret: { value: signingSecret, rotated: false } });
    },
  },
  {
    method: 'POST',
    path: channelAction('rotate'),
    async handle(page, [id]) {
      page.require('alerts');
      const channel = await channelOf(page, id!);
      if (!(await page.form())) return;
      const { signingSecret } = await manage.rotateChannelSecret(page.deps, page.organization, channel.id);
      await channelPage(page, channel, 200, { secret: { value: signingSecret, rotated: true } });
    },
  },
  {
    method: 'POST',
    path: channelAction('test'),
    async handle(page, [id]) {
      page.require('alerts');
      const channel = await channelOf(page, id!);
      if (!(await page.form())) return;
      let saved = 'test';
      try {
        await manage.testChannel(page.deps, page.organization, channel.id);
      } catch (refused) {
        if (!(refused instanceof ConflictError)) throw refused;
        saved = 'test-waiting';
      }
      page.seeOther(`${page.href('alert-channels', String(channel.id))}?saved=${saved}`);
    },
  },
];
