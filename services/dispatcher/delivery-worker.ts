// Sends the outbox (AlertStore deliveries): every half second, claims the due deliveries (one per
// channel at a time, up to BATCH sends under way), signs each with its channel's current secret
// at that moment (so Rotate applies to the very next attempt), sends it, records the attempt,
// and schedules a retry or finishes it
// (core/alerts/delivery-policy.ts). Claims expire, so deliveries a dispatcher held when it died
// are sent by the next one; a restart loses nothing.
import { DELIVERY_DEADLINE_MS, retryDelayMs, verdictOf } from '../core/alerts/delivery-policy.ts';
import type { SecretBox } from '../core/alerts/secret-box.ts';
import { SIGNATURE_HEADER, webhookSignature } from '../core/alerts/webhook-signature.ts';
import type { AlertStore, DueDelivery } from '../core/ports/alert-store.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { sendWebhook, type SenderOptions } from './webhook-sender.ts';

const POLL_MS = 500;
const BATCH = 20;
/** Longer than a send can take, so a live sender never loses its claim. */
const CLAIM_MS = DELIVERY_DEADLINE_MS + 20_000;

interface DeliveryWorkerDeps {
  alerts: AlertStore;
  secrets: SecretBox;
  sender: Omit<SenderOptions, 'timeoutMs'>;
  retryBaseMs: number;
  logger: Logger;
  metrics: Metrics;
  now?: () => number;
}

export function startDeliveryWorker(deps: DeliveryWorkerDeps): { stop(): Promise<void> } {
  const now = deps.now ?? Date.now;
  // Every verdict reported from the start (at 0), so the failure ratio is defined before the first failure.
  for (const verdict of ['delivered', 'retry', 'failed']) deps.metrics.webhookAttempts.inc({ verdict }, 0);
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  // Sends under way. Each tick claims only what there is room for and does not wait for them:
  // waiting for a whole claim held every alert behind its slowest receiver's 10 s.
  const sending = new Set<Promise<void>>();

  const tick = async () => {
    try {
      while (!stopped && sending.size < BATCH) {
        const room = BATCH - sending.size;
        const due = await deps.alerts.claimDueDeliveries(new Date(now()), room, CLAIM_MS);
        for (const delivery of due) {
          const send: Promise<void> = deliver(deps, delivery, now)
            .catch((error: unknown) => {
              // Its claim runs out and the next tick sends it again.
              deps.logger.error({ err: error, deliveryId: delivery.id }, 'a webhook delivery could not be recorded');
            })
            .finally(() => sending.delete(send));
          sending.add(send);
        }
        if (due.length < room) break;
      }
    } catch (error) {
      deps.logger.error({ err: error }, 'webhook deliveries could not be claimed; trying again shortly');
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(schedule);
    }, POLL_MS);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await Promise.all(sending);
    },
  };
}

async function deliver(deps: DeliveryWorkerDeps, delivery: DueDelivery, now: () => number): Promise<void> {
  const at = new Date(now());
  let result: Awaited<ReturnType<typeof sendWebhook>>;
  try {
    const secret = deps.secrets.open(delivery.sealedSecret);
    const signature = webhookSignature(secret, Math.floor(at.getTime() / 1000), delivery.body);
    result = await sendWebhook(
      delivery.url,
      delivery.body,
      {
        'content-type': 'application/json',
        'user-agent': deps.sender.userAgent,
        [SIGNATURE_HEADER]: signature,
        // One id for every attempt of a delivery, so a receiver can tell a retry from a new alert.
        'x-errata-delivery': String(delivery.id),
      },
      { ...deps.sender, timeoutMs: DELIVERY_DEADLINE_MS },
    );
  } catch (error) {
    result = { error: (error as Error).message, latencyMs: 0 };
  }
  const verdict = result.refused ? 'failed' : verdictOf(result.status);
  const attempts = delivery.attempts + 1;
  // A test is tried once: it is asked for to see what the receiver answers now, and one waiting
  // to be retried for hours would let a token queue tests without end (the outbox holds back a
  // test only while another to its channel has not been tried).
  const delay = verdict === 'retry' && delivery.kind !== 'test' ? retryDelayMs(attempts, deps.retryBaseMs) : undefined;
  const next =
    verdict === 'delivered'
      ? ({ status: 'delivered' } as const)
      : delay === undefined
        ? ({ status: 'failed' } as const)
        : ({ status: 'pending', nextAttemptAt: new Date(now() + delay) } as const);
  // Counted and logged by what happens next: a retryable answer that used the last attempt, or
  // a test's (tried once), is the delivery's failure, and the log says so.
  const outcome = next.status === 'pending' ? 'retry' : next.status;
  deps.metrics.webhookAttempts.inc({ verdict: outcome });
  const error = result.error ?? (verdict === 'delivered' ? null : `HTTP ${result.status}`);
  await deps.alerts.recordAttempt(
    delivery.id,
    { at, statusCode: result.status ?? null, latencyMs: result.latencyMs, verdict: outcome, error },
    next,
  );
  if (next.status !== 'delivered') {
    deps.logger.warn(
      { deliveryId: delivery.id, channelId: delivery.channelId, attempts, status: result.status, error, next: next.status },
      'webhook delivery not accepted',
    );
  }
}
