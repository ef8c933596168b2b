// The alert evaluator's rate limit, the overflow summary and the scheduled digest, over real
// stores (PGlite) fed by the real event pipeline, delivered by the delivery worker to a real
// HTTPS receiver on loopback. The clock is passed in, so "five minutes later" and "tomorrow at
// the digest hour" need no waiting.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyErrataWebhook } from '../../examples/webhook-receiver/verify-errata-webhook.ts';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/support/https-receiver.ts';
import * as manage from '../core/alerts/alert-management.ts';
import { secretBox } from '../core/alerts/secret-box.ts';
import { triageIssues } from '../core/issues/triage.ts';
import { encodeQueuedItem } from '../core/pipeline/queued-item.ts';
import type { MetadataStore, Organization } from '../core/ports/metadata-store.ts';
import { createLogger } from '../runtime/logger.ts';
import { createMetrics, outcomeRecorder } from '../runtime/metrics.ts';
import { sendDueDigests } from './alert-digest.ts';
import { AlertEvaluator } from './alert-evaluator.ts';
import { startDeliveryWorker } from './delivery-worker.ts';
import { eventPipeline } from './event-pipeline.ts';
import { OVERFLOW_GATHER_MS, summarizeOverflow } from './overflow-summary.ts';

const BASE_URL = 'https://errata.example.com';
const MINUTE = 60_000;
const logger = createLogger('silent');
let stores: EmbeddedStores;
let receiver: HttpsReceiver;
let organization: Organization;
let deps: manage.AlertManagementDeps;

/**
 * The stores' metadata, refusing to list every organization: the evaluator and the jobs read the
 * one they need by id (listing each minute, or per alert, cost a fleet of thousands).
 */
function readingOrganizationsById(metadata: MetadataStore): MetadataStore {
  return new Proxy(metadata, {
    get(target, property) {
      if (property === 'listOrganizations') return () => Promise.reject(new Error('listed every organization'));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  stores = await openEmbeddedStores();
  receiver = await startHttpsReceiver();
  organization = await stores.metadata.ensureOrganization('acme', 'Acme');
  deps = {
    alerts: stores.alerts,
    secrets: secretBox(randomBytes(32)),
    metadata: readingOrganizationsById(stores.metadata),
    baseUrl: BASE_URL,
    webhookAllowHosts: [],
  };
});
afterAll(async () => {
  await receiver.close();
  await stores.close();
});

async function project(slug: string, name: string) {
  const { project } = await stores.metadata.createProject(
    { organizationId: organization.id, slug, name },
    { publicKey: randomBytes(16).toString('hex'), label: 'Default' },
  );
  return project;
}

let offset = 0;
const metrics = createMetrics({ processMetrics: false });
const heldCount = async () => (await metrics.webhookHeld.get()).values[0]?.value ?? 0;
/** Events as @sentry/node sends them, through the event pipeline with alerts evaluated. */
async function ingest(
  projectId: number,
  events: Array<{ group: string; message: string; ageSeconds?: number; release?: string }>,
  limitPerHour: number,
  /** How long before this batch is processed its events were received: the queue's backlog. */
  lagSeconds = 0,
) {
  const pipeline = eventPipeline({
    metadata: stores.metadata,
    events: stores.events,
    alertEvaluator: new AlertEvaluator({
      alerts: stores.alerts,
      metadata: readingOrganizationsById(stores.metadata),
      events: stores.events,
      baseUrl: BASE_URL,
      channelLimitPerHour: limitPerHour,
      metrics,
    }),
    outcomes: outcomeRecorder(metrics, 'dispatcher'),
    metrics,
    logger: createLogger('silent'),
  });
  const receivedAt = Date.now() / 1000 - lagSeconds;
  await pipeline(
    events.map((event) => {
      const id = randomBytes(16).toString('hex');
      const payload = {
        event_id: id,
        timestamp: receivedAt - (event.ageSeconds ?? 0),
        platform: 'node',
        level: 'error',
        environment: 'production',
        fingerprint: [event.group],
        ...(event.release ? { release: event.release } : {}),
        exception: { values: [{ type: 'Error', value: event.message }] },
      };
      offset += 1;
      return {
        topic: 'event',
        partition: 0,
        offset: String(offset),
        key: id,
        value: encodeQueuedItem({
          header: { v: 1, kind: 'event', id, projectId, organizationId: organization.id, receivedAt },
          payload: Buffer.from(JSON.stringify(payload)),
        }),
      };
    }),
  );
}

/** Sends what is queued, until `count` more requests reached the receiver; returns their payloads. */
async function deliver(count: number, secret: string): Promise<Array<Record<string, any>>> {
  const from = receiver.received.length;
  const worker = startDeliveryWorker({
    alerts: stores.alerts,
    secrets: deps.secrets,
    sender: { allowHosts: ['localhost'], userAgent: 'errata/test', ca: [receiver.caPem] },
    retryBaseMs: 100,
    logger: createLogger('silent'),
    metrics,
  });
  try {
    const deadline = Date.now() + 20_000;
    while (receiver.received.length - from < count) {
      if (Date.now() > deadline) throw new Error(`only ${receiver.received.length - from} of ${count} requests arrived`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await worker.stop();
  }
  return receiver.received.slice(from).map((request) => {
    const header = String(request.headers['x-errata-signature']);
    expect(verifyErrataWebhook({ secret, header, rawBody: request.rawBody })).toMatchObject({ ok: true });
    return JSON.parse(request.rawBody.toString('utf8')) as Record<string, any>;
  });
}

describe('overflow summary', () => {
  it('holds alerts beyond the hourly limit and sends them as one summary, shaped as SPEC says', async () => {
    const shop = await project('shop', 'Shop');
    const { channel, signingSecret } = await manage.createChannel(deps, organization, {
      name: 'Pager',
      type: 'webhook',
      url: `${receiver.url}?channel=pager`,
    });
    await manage.createRule(deps, organization, shop, { name: 'Every', trigger: 'every_occurrence', channelIds: [channel.id] });
    const heldBefore = await heldCount();
    await ingest(
      shop.id,
      Array.from({ length: 5 }, (_, i) => ({ group: `g${i % 2}`, message: `boom ${i}` })),
      2,
    );
    const statuses = (await stores.alerts.listDeliveries(channel.id, 10)).map((d) => d.status).sort();
    expect(statuses).toEqual(['held', 'held', 'held', 'pending', 'pending']);
    // errata_webhook_deliveries_held_total, which the WebhookDeliveriesHeld alert reads.
    expect((await heldCount()) - heldBefore).toBe(3);

    const now = Date.now();
    expect(await summarizeOverflow(deps, new Date(now), logger)).toBe(0);
    expect(await summarizeOverflow(deps, new Date(now + OVERFLOW_GATHER_MS + MINUTE), logger)).toBe(1);
    expect(await summarizeOverflow(deps, new Date(now + OVERFLOW_GATHER_MS + 2 * MINUTE), logger)).toBe(0);
    expect(await stores.alerts.listHeld(channel.id)).toEqual([]);
    const after = (await stores.alerts.listDeliveries(channel.id, 10)).map((d) => d.status).sort();
    expect(after).toEqual(['pending', 'pending', 'pending', 'summarized', 'summarized', 'summarized']);

    const payloads = await deliver(3, signingSecret);
    expect(payloads.map((p) => p.kind).sort()).toEqual(['every_occurrence', 'every_occurrence', 'overflow_summary']);
    const summary = payloads.find((p) => p.kind === 'overflow_summary')!;
    expect(Object.keys(summary).sort()).toEqual(['body', 'digest', 'kind', 'title', 'url']);
    expect(summary.title).toBe('3 alerts to Pager held back by its rate limit');
    expect(summary.digest.headline).toBe(summary.title);
    expect(summary.body).toBe(
      '3 alerts to Pager held back by its rate limit. This count includes rate-limit delays and repeated refusals; it is not a count of distinct issues.',
    );
    expect(summary.url).toBe(`${BASE_URL}/organizations/acme/alert-channels/${channel.id}`);
    expect(summary.digest.sections).toEqual([
      {
        projectName: 'Shop',
        countsLine: '3 held back: 3 every_occurrence',
        topIssues: [{ shortId: 'Project', title: 'Open project', url: `${BASE_URL}/organizations/acme/projects/shop` }],
      },
    ]);
  });
});

describe('digest', () => {
  it('goes out once a day at the hour of its time zone, with a section per project that has something to report', async () => {
    const web = await project('web', 'Web');
    await project('quiet', 'Quiet');
    const { channel, signingSecret } = await manage.createChannel(deps, organization, {
      name: 'Daily',
      type: 'webhook',
      url: `${receiver.url}?channel=daily`,
    });
    await ingest(
      web.id,
      [
        { group: 'a', message: 'first' },
        { group: 'a', message: 'again' },
        { group: 'a', message: 'and again' },
        { group: 'b', message: 'second' },
      ],
      100,
    );
    await manage.updateChannel(deps, organization, channel.id, { digest: { hour: 9, timeZone: 'Europe/Berlin' } });
    const now = Date.now();
    // Set just now: the hour that last passed came before the schedule, so nothing is due yet.
    expect(await sendDueDigests({ ...deps, events: stores.events }, new Date(now), logger)).toBe(0);
    const tomorrow = new Date(now + 24 * 60 * MINUTE);
    expect(await sendDueDigests({ ...deps, events: stores.events }, tomorrow, logger)).toBe(1);
    expect(await sendDueDigests({ ...deps, events: stores.events }, new Date(tomorrow.getTime() + MINUTE), logger)).toBe(0);

    const [digest] = await deliver(1, signingSecret);
    expect(Object.keys(digest!).sort()).toEqual(['body', 'digest', 'kind', 'title', 'url']);
    expect(digest!.kind).toBe('digest');
    expect(digest!.title).toBe(digest!.digest.headline);
    expect(digest!.url).toBe(`${BASE_URL}/organizations/acme`);
    // The Shop project of the overflow test reported too (its 5 events are from the same day).
    const web_ = digest!.digest.sections.find((s: { projectName: string }) => s.projectName === 'Web');
    expect(digest!.digest.sections.map((s: { projectName: string }) => s.projectName)).not.toContain('Quiet');
    expect(web_.countsLine).toBe('4 events in 2 issues · 2 new · 0 regressed');
    // Ordered by events in the day; an issue is titled after its latest event.
    expect(web_.topIssues).toEqual([
      {
        shortId: expect.stringMatching(/^WEB-\d+$/),
        title: 'Error: and again',
        url: expect.stringMatching(/\/issues\/WEB-\d+$/),
      },
      { shortId: expect.stringMatching(/^WEB-\d+$/), title: 'Error: second', url: expect.stringMatching(/\/issues\/WEB-\d+$/) },
    ]);
    expect(digest!.title).toMatch(/^Daily digest for Acme: 9 events in 2 projects$/);
  });

  it('starts where the last digest ended when its schedule moves, so no hour is reported twice', async () => {
    const events = await project('moved', 'Moved');
    const { channel } = await manage.createChannel(deps, organization, {
      name: 'Moved',
      type: 'webhook',
      url: `${receiver.url}?channel=moved`,
    });
    await ingest(events.id, [{ group: 'm', message: 'moved' }], 100);
    // The hour two hours from now (UTC): its next due time is one to two hours away.
    const hour = new Date(Date.now() + 120 * MINUTE).getUTCHours();
    await manage.updateChannel(deps, organization, channel.id, { digest: { hour, timeZone: 'UTC' } });
    const due = new Date(Date.now() + 120 * MINUTE);
    due.setUTCMinutes(0, 0, 0);
    const send = (at: Date) => sendDueDigests({ ...deps, events: stores.events }, at, logger);
    const queued = async () => (await stores.alerts.listDeliveries(channel.id, 10)).filter((d) => d.kind === 'digest').length;
    expect(await send(due)).toBeGreaterThanOrEqual(1);
    expect(await queued()).toBe(1);
    // Moved an hour later after it went out: the next digest covers that hour alone, which had
    // nothing; before, it covered the 23 hours before the first digest again and sent them twice.
    await manage.updateChannel(deps, organization, channel.id, { digest: { hour: (hour + 1) % 24, timeZone: 'UTC' } });
    await send(new Date(due.getTime() + 90 * MINUTE));
    const listed = (await stores.alerts.listDigestChannels()).find((c) => c.id === channel.id)!;
    expect(listed.digestReportedUntil).toEqual(new Date(due.getTime() + 60 * MINUTE));
    expect(await queued()).toBe(1);
  });
});

describe('muted issues', () => {
  it('sends no alerts for an issue while it is ignored or snoozed, and again once it is unresolved', async () => {
    const muted = await project('muted', 'Muted');
    const { channel } = await manage.createChannel(deps, organization, {
      name: 'Muted pager',
      type: 'webhook',
      url: `${receiver.url}?channel=muted`,
    });
    await manage.createRule(deps, organization, muted, { name: 'Every', trigger: 'every_occurrence', channelIds: [channel.id] });
    const deliveries = async () => (await stores.alerts.listDeliveries(channel.id, 100)).length;
    await ingest(muted.id, [{ group: 'noisy', message: 'noise' }], 100);
    expect(await deliveries()).toBe(1);
    const [issue] = (await stores.metadata.listIssues({ projectId: muted.id, limit: 10, status: 'all' })).items;
    const act = (action: 'ignore' | 'snooze' | 'unresolve') =>
      triageIssues(
        stores,
        muted.id,
        [issue!],
        { action, ...(action === 'snooze' ? { snoozeMinutes: 60 } : {}) },
        { kind: 'person', name: 'ada@example.com' },
        new Date(),
      );

    await act('ignore');
    await ingest(
      muted.id,
      [
        { group: 'noisy', message: 'noise' },
        { group: 'noisy', message: 'noise' },
      ],
      100,
    );
    expect(await deliveries()).toBe(1);
    await act('snooze');
    await ingest(muted.id, [{ group: 'noisy', message: 'noise' }], 100);
    expect(await deliveries()).toBe(1);
    await act('unresolve');
    await ingest(muted.id, [{ group: 'noisy', message: 'noise' }], 100);
    expect(await deliveries()).toBe(2);
    // Its deliveries go with it, so no later worker sends them.
    expect(await stores.alerts.deleteChannel(organization.id, channel.id)).toBe(true);
  });

  it("withdraws a deleted issue's alerts not yet sent, and keeps the project's new-release alert and other issues'", async () => {
    const gone = await project('gone', 'Gone');
    const { channel } = await manage.createChannel(deps, organization, {
      name: 'Down pager',
      type: 'webhook',
      url: `${receiver.url}?channel=down`,
    });
    for (const trigger of ['new_issue', 'every_occurrence', 'new_release'] as const) {
      await manage.createRule(deps, organization, gone, { name: trigger, trigger, channelIds: [channel.id] });
    }
    // The receiver is down, say: nothing is sent before the issue is deleted. The release is
    // first seen in the deleted issue's event, and stays the project's news.
    await ingest(
      gone.id,
      [
        { group: 'deleted', message: 'to be deleted', release: 'gone@1.0.0' },
        { group: 'kept', message: 'kept' },
      ],
      100,
    );
    const kinds = async () => (await stores.alerts.listDeliveries(channel.id, 100)).map((d) => d.kind).sort();
    expect(await kinds()).toEqual(['every_occurrence', 'every_occurrence', 'new_issue', 'new_issue', 'new_release']);
    const { items } = await stores.metadata.listIssues({ projectId: gone.id, limit: 10, status: 'all' });
    const deleted = items.find((issue) => issue.title.includes('to be deleted'))!;
    await triageIssues(stores, gone.id, [deleted], { action: 'delete' }, { kind: 'person', name: 'ada@example.com' }, new Date());
    expect(await kinds()).toEqual(['every_occurrence', 'new_issue', 'new_release']);
    expect(await stores.alerts.deleteChannel(organization.id, channel.id)).toBe(true);
  });
});

describe('frequent', () => {
  it('alerts once for a busy issue whose batch also carries a backlog of days-old events', async () => {
    const busy = await project('busy', 'Busy');
    const { channel } = await manage.createChannel(deps, organization, {
      name: 'Busy pager',
      type: 'webhook',
      url: `${receiver.url}?channel=busy`,
    });
    await manage.createRule(deps, organization, busy, {
      name: 'Frequent',
      trigger: 'frequent',
      threshold: 2,
      windowMinutes: 5,
      channelIds: [channel.id],
    });
    // An SDK flushing what it kept offline for three days, while the issue is busy now: each old
    // event fell in a window of its own and alerted again.
    const now = [0, 0, 0].map(() => ({ group: 'busy', message: 'busy now' }));
    const backlog = [1, 2, 3].map((days) => ({ group: 'busy', message: 'busy now', ageSeconds: days * 86_400 }));
    await ingest(busy.id, [...now, ...backlog], 100);
    expect(await stores.alerts.listDeliveries(channel.id, 100)).toHaveLength(1);
    expect(await stores.alerts.deleteChannel(organization.id, channel.id)).toBe(true);
  });

  it("does not count an alert of a window already added toward the channel's hourly limit", async () => {
    const busy = await project('capped', 'Capped');
    const { channel } = await manage.createChannel(deps, organization, {
      name: 'Capped pager',
      type: 'webhook',
      url: `${receiver.url}?channel=capped`,
    });
    for (const trigger of ['frequent', 'new_issue'] as const) {
      await manage.createRule(deps, organization, busy, {
        name: trigger,
        trigger,
        ...(trigger === 'frequent' ? { threshold: 2, windowMinutes: 60 } : {}),
        channelIds: [channel.id],
      });
    }
    // Two alerts of a limit of three: the issue is new, and busy.
    await ingest(
      busy.id,
      [0, 1, 2].map(() => ({ group: 'busy', message: 'busy' })),
      3,
    );
    // The same window's `frequent` again, and a new issue: the one place left is the new issue's.
    await ingest(
      busy.id,
      [
        { group: 'busy', message: 'busy' },
        { group: 'fresh', message: 'fresh' },
      ],
      3,
    );
    const statuses = (await stores.alerts.listDeliveries(channel.id, 100)).map((d) => `${d.kind}:${d.status}`).sort();
    expect(statuses).toEqual(['frequent:pending', 'new_issue:pending', 'new_issue:pending']);
    expect(await stores.alerts.deleteChannel(organization.id, channel.id)).toBe(true);
  });

  it('counts the window up to when the batch was received, so a burst processed late still alerts', async () => {
    const late = await project('late', 'Late');
    const { channel } = await manage.createChannel(deps, organization, {
      name: 'Late pager',
      type: 'webhook',
      url: `${receiver.url}?channel=late`,
    });
    await manage.createRule(deps, organization, late, {
      name: 'Frequent',
      trigger: 'frequent',
      threshold: 2,
      windowMinutes: 5,
      channelIds: [channel.id],
    });
    // A burst received 8 minutes ago, processed only now (a dispatcher restarted, or behind):
    // counted back from now, its 5 minutes held none of it, and it never alerted.
    const burst = [0, 1, 2].map(() => ({ group: 'late', message: 'burst' }));
    await ingest(late.id, burst, 100, 8 * 60);
    expect(await stores.alerts.listDeliveries(channel.id, 100)).toHaveLength(1);
    expect(await stores.alerts.deleteChannel(organization.id, channel.id)).toBe(true);
  });
});
