// The delivery worker over PGlite stores, sending to a real HTTPS receiver on loopback: signed
// requests (checked with the shipped verifier and with node:crypto), the verdicts of SPEC §7,
// retries, Rotate on the next attempt, and refusal of private addresses not allowed.
import { createHmac } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyErrataWebhook } from '../../examples/webhook-receiver/verify-errata-webhook.ts';
import { MAX_ATTEMPTS } from '../core/alerts/delivery-policy.ts';
import { secretBox } from '../core/alerts/secret-box.ts';
import { mintSigningSecret } from '../core/alerts/webhook-signature.ts';
import { createLogger } from '../runtime/logger.ts';
import { createMetrics } from '../runtime/metrics.ts';
import { startConnectionCounter } from '../../test/support/connection-counter.ts';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/support/https-receiver.ts';
import { nameRefused, RECEIVER_REFUSED } from '../../test/support/private-receivers.ts';
import { startDeliveryWorker } from './delivery-worker.ts';

let stores: EmbeddedStores;
let alerts: EmbeddedStores['alerts'];
let receiver: HttpsReceiver;
const box = secretBox(randomBytes(32));
const metrics = createMetrics({ processMetrics: false });
/** errata_webhook_delivery_attempts_total by verdict, which the delivery alerts read. */
async function attemptCounts(): Promise<Record<string, number>> {
  return Object.fromEntries((await metrics.webhookAttempts.get()).values.map((v) => [v.labels.verdict, v.value]));
}
let organizationId: number;

beforeAll(async () => {
  stores = await openEmbeddedStores();
  alerts = stores.alerts;
  organizationId = (await stores.metadata.ensureOrganization('acme', 'Acme')).id;
  receiver = await startHttpsReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stores.close();
});

async function until<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function worker(allowHosts = ['localhost'], ca = [receiver.caPem]) {
  return startDeliveryWorker({
    alerts,
    secrets: box,
    sender: { allowHosts, userAgent: 'errata/test', ca },
    retryBaseMs: 100,
    logger: createLogger('silent'),
    metrics,
  });
}

describe('delivery worker', () => {
  it('signs every attempt with the current secret; retries 500 and 429, then delivers', async () => {
    const secret = mintSigningSecret();
    const channel = await alerts.createChannel({
      organizationId,
      name: 'ops',
      url: receiver.url,
      sealedSecret: box.seal(secret),
    });
    receiver.script.push(500, 429);
    const body = '{"kind":"test","title":"\\u003cb\\u003e","body":"","url":""}';
    const [delivery] = await alerts.enqueueDeliveries([
      { channelId: channel.id, ruleId: null, projectId: null, dedupKey: null, kind: 'digest', body, status: 'pending' },
    ]);
    const before = await attemptCounts();
    const running = worker();
    try {
      const done = await until(async () => {
        const [listed] = await alerts.listDeliveries(channel.id, 1);
        return listed?.status === 'delivered' ? listed : undefined;
      });
      expect(done.id).toBe(delivery!.id);
      const counted = await attemptCounts();
      expect((counted.retry ?? 0) - (before.retry ?? 0)).toBe(2);
      expect((counted.delivered ?? 0) - (before.delivered ?? 0)).toBe(1);
      expect(done.attemptLog.map((a) => [a.statusCode, a.verdict])).toEqual([
        [500, 'retry'],
        [429, 'retry'],
        [200, 'delivered'],
      ]);
      const requests = receiver.received.splice(0);
      expect(requests).toHaveLength(3);
      for (const request of requests) {
        expect(request.rawBody.toString()).toBe(body);
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers['user-agent']).toBe('errata/test');
        // The same on every attempt: a receiver that did the work but answered late knows the retry.
        expect(request.headers['x-errata-delivery']).toBe(String(delivery!.id));
        const header = request.headers['x-errata-signature'] as string;
        expect(verifyErrataWebhook({ secret, header, rawBody: request.rawBody })).toMatchObject({ ok: true });
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)!;
        expect(createHmac('sha256', secret).update(`${t}.`).update(request.rawBody).digest('hex')).toBe(v1);
      }

      // Rotate: the next delivery is signed with the new secret only.
      const rotated = mintSigningSecret();
      await alerts.updateChannel(organizationId, channel.id, { sealedSecret: box.seal(rotated) });
      await alerts.enqueueDeliveries([
        { channelId: channel.id, ruleId: null, projectId: null, dedupKey: null, kind: 'digest', body, status: 'pending' },
      ]);
      const [after] = await until(() => (receiver.received.length > 0 ? receiver.received.splice(0) : undefined));
      const header = after!.headers['x-errata-signature'] as string;
      expect(verifyErrataWebhook({ secret: rotated, header, rawBody: after!.rawBody }).ok).toBe(true);
      expect(verifyErrataWebhook({ secret, header, rawBody: after!.rawBody }).ok).toBe(false);
    } finally {
      await running.stop();
    }
  });

  it('fails for good on 400 and on a redirect, which it does not follow', async () => {
    const channel = await alerts.createChannel({
      organizationId,
      name: 'x',
      url: receiver.url,
      sealedSecret: box.seal(mintSigningSecret()),
    });
    receiver.script.push(400, 301);
    const add = () =>
      alerts.enqueueDeliveries([
        { channelId: channel.id, ruleId: null, projectId: null, dedupKey: null, kind: 'digest', body: '{}', status: 'pending' },
      ]);
    await add();
    await add();
    const running = worker();
    try {
      const finished = await until(async () => {
        const list = await alerts.listDeliveries(channel.id, 10);
        return list.length === 2 && list.every((d) => d.status === 'failed') ? list : undefined;
      });
      expect(finished.map((d) => d.attemptLog.map((a) => a.statusCode)).sort()).toEqual([[301], [400]]);
      expect(receiver.received.splice(0)).toHaveLength(2);
    } finally {
      await running.stop();
    }
  });

  it('tries a test once: one the receiver answers 503 fails at once, and the next test is queued', async () => {
    const channel = await alerts.createChannel({
      organizationId,
      name: 'tested',
      url: receiver.url,
      sealedSecret: box.seal(mintSigningSecret()),
    });
    receiver.script.push(503);
    const test = {
      channelId: channel.id,
      ruleId: null,
      projectId: null,
      dedupKey: null,
      kind: 'test',
      body: '{}',
      status: 'pending',
    } as const;
    await alerts.enqueueDeliveries([test]);
    const running = worker();
    try {
      const [failed] = await until(async () => {
        const list = await alerts.listDeliveries(channel.id, 10);
        return list[0]?.status === 'failed' ? list : undefined;
      });
      expect(failed!.attemptLog.map((a) => [a.statusCode, a.verdict])).toEqual([[503, 'failed']]);
      expect(await alerts.enqueueDeliveries([test])).toHaveLength(1);
      await until(async () => ((await alerts.listDeliveries(channel.id, 10))[0]?.status === 'delivered' ? true : undefined));
      expect(receiver.received.splice(0)).toHaveLength(2);
    } finally {
      await running.stop();
    }
  });

  it('logs the last attempt of an alert as its failure, though the answer could have been retried', async () => {
    const channel = await alerts.createChannel({
      organizationId,
      name: 'last try',
      url: receiver.url,
      sealedSecret: box.seal(mintSigningSecret()),
    });
    const [delivery] = await alerts.enqueueDeliveries([
      { channelId: channel.id, ruleId: null, projectId: null, dedupKey: null, kind: 'digest', body: '{}', status: 'pending' },
    ]);
    // The attempts before the last, as the worker records them.
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      await alerts.recordAttempt(
        delivery!.id,
        { at: new Date(), statusCode: 503, latencyMs: 1, verdict: 'retry', error: 'HTTP 503' },
        { status: 'pending', nextAttemptAt: new Date() },
      );
    }
    receiver.script.push(503);
    const before = await attemptCounts();
    const running = worker();
    try {
      const [failed] = await until(async () => {
        const list = await alerts.listDeliveries(channel.id, 1);
        return list[0]?.status === 'failed' ? list : undefined;
      });
      expect(failed!.attemptLog).toHaveLength(MAX_ATTEMPTS);
      expect(failed!.attemptLog.at(-1)).toMatchObject({ statusCode: 503, verdict: 'failed' });
      const counted = await attemptCounts();
      expect((counted.failed ?? 0) - (before.failed ?? 0)).toBe(1);
      expect(receiver.received.splice(0)).toHaveLength(1);
    } finally {
      await running.stop();
    }
  });

  it('gives a receiver 10 seconds: one that does not answer in time is retried', async () => {
    const channel = await alerts.createChannel({
      organizationId,
      name: 'slow',
      url: receiver.url,
      sealedSecret: box.seal(mintSigningSecret()),
    });
    receiver.script.push('hang');
    await alerts.enqueueDeliveries([
      { channelId: channel.id, ruleId: null, projectId: null, dedupKey: null, kind: 'digest', body: '{}', status: 'pending' },
    ]);
    const running = worker();
    try {
      const done = await until(async () => {
        const [listed] = await alerts.listDeliveries(channel.id, 1);
        return listed?.status === 'delivered' ? listed : undefined;
      }, 30_000);
      expect(done.attemptLog.map((a) => [a.statusCode, a.verdict, a.error])).toEqual([
        [null, 'retry', 'no answer within 10 s'],
        [200, 'delivered', null],
      ]);
      expect(done.attemptLog[0]!.latencyMs).toBeGreaterThanOrEqual(10_000);
      expect(receiver.received.splice(0)).toHaveLength(2);
    } finally {
      await running.stop();
    }
  }, 40_000);

  it('keeps one send per channel at a time, so a receiver that never answers holds up no other channel', async () => {
    const tarpit = await startHttpsReceiver();
    const sealed = box.seal(mintSigningSecret());
    const slow = await alerts.createChannel({ organizationId, name: 'tarpit', url: tarpit.url, sealedSecret: sealed });
    const fine = await alerts.createChannel({ organizationId, name: 'fine', url: receiver.url, sealedSecret: sealed });
    tarpit.script.push('hang');
    const test = (channelId: number) =>
      ({ channelId, ruleId: null, projectId: null, dedupKey: null, kind: 'digest', body: '{}', status: 'pending' }) as const;
    // A claim's worth of alerts to the tarpit, then one elsewhere: before, the claim took twenty
    // of the tarpit's, and the other waited for the one that hung.
    await alerts.enqueueDeliveries(Array.from({ length: 20 }, () => test(slow.id)));
    await alerts.enqueueDeliveries([test(fine.id)]);
    const running = worker(['localhost'], [receiver.caPem, tarpit.caPem]);
    try {
      await until(async () => ((await alerts.listDeliveries(fine.id, 1))[0]?.status === 'delivered' ? true : undefined));
      const tarpitAttempts = (await alerts.listDeliveries(slow.id, 20)).flatMap((d) => d.attemptLog);
      expect(tarpitAttempts).toEqual([]);
      expect(tarpit.received).toHaveLength(1);
      expect(receiver.received.splice(0)).toHaveLength(1);
    } finally {
      await running.stop();
      await tarpit.close();
      await alerts.deleteChannel(organizationId, slow.id);
      await alerts.deleteChannel(organizationId, fine.id);
    }
  }, 40_000);

  it('refuses a loopback receiver that is not allowed, and retries it as a connection error', async () => {
    const channel = await alerts.createChannel({
      organizationId,
      name: 'ssrf',
      url: receiver.url,
      sealedSecret: box.seal(mintSigningSecret()),
    });
    await alerts.enqueueDeliveries([
      { channelId: channel.id, ruleId: null, projectId: null, dedupKey: null, kind: 'digest', body: '{}', status: 'pending' },
    ]);
    const running = worker([]);
    try {
      const [attempted] = await until(async () => {
        const list = await alerts.listDeliveries(channel.id, 1);
        return list[0]?.attempts ? list : undefined;
      });
      expect(attempted!.attemptLog[0]).toMatchObject({
        statusCode: null,
        verdict: 'retry',
        error: nameRefused('localhost'),
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await running.stop();
    }
  });

  it('never connects to a private IP literal stored as a URL, logs an open port like a closed one, and does not try again', async () => {
    // Channels are checked when made, but one may predate that check or the allow-list it used.
    const counter = await startConnectionCounter();
    const channelTo = (url: string) =>
      alerts.createChannel({ organizationId, name: `stored ${url}`, url, sealedSecret: box.seal(mintSigningSecret()) });
    const channels = [
      await channelTo(`https://127.0.0.1:${counter.port}/hooks`),
      await channelTo(`https://127.0.0.1:${counter.closedPort}/hooks`),
      await channelTo('http://example.com/hooks'),
    ];
    await alerts.enqueueDeliveries(
      channels.map((channel) => ({
        channelId: channel.id,
        ruleId: null,
        projectId: null,
        dedupKey: null,
        kind: 'digest' as const,
        body: '{}',
        status: 'pending' as const,
      })),
    );
    const running = worker([]);
    try {
      const attempts = await until(async () => {
        const firsts = await Promise.all(channels.map(async (c) => (await alerts.listDeliveries(c.id, 1))[0]?.attemptLog[0]));
        return firsts.every(Boolean) ? firsts : undefined;
      });
      expect(attempts.map((a) => [a!.statusCode, a!.verdict, a!.error])).toEqual([
        [null, 'failed', RECEIVER_REFUSED],
        [null, 'failed', RECEIVER_REFUSED],
        [null, 'failed', 'refused: http:// is not https://'],
      ]);
      // The URL alone decides the refusal, so a retry could only be refused again, for a day.
      for (const channel of channels)
        expect((await alerts.listDeliveries(channel.id, 1))[0]).toMatchObject({ status: 'failed', attempts: 1 });
      expect(await counter.connectionsSoFar()).toBe(0);
    } finally {
      await running.stop();
      await counter.close();
    }
  });
});
