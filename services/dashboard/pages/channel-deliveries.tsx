// A channel's deliveries log: each delivery (kind, status, next try while pending) with every
// attempt (HTTP status, latency, verdict, error). While a delivery is pending, htmx reloads the
// log every 3 seconds from its fragment route; a log with none pending has no trigger, so
// swapping it in ends the polling. Without JavaScript, a reload shows the same.
import { RelativeTime } from '../components/time.tsx';
import type { ChannelDelivery } from './channel-parts.ts';

const STATUS_TEXT: Record<string, string> = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
  held: 'Held (rate limit)',
  summarized: 'Summarized',
};

interface DeliveryLogProps {
  deliveries: ChannelDelivery[];
  /** The fragment route this log polls while a delivery is pending. */
  pollHref: string;
  now: Date;
  zone: string | null;
}

export function DeliveryLog({ deliveries, pollHref, now, zone }: DeliveryLogProps) {
  const live = deliveries.some((delivery) => delivery.status === 'pending');
  return (
    <div
      id="deliveries"
      class="delivery-box"
      aria-live="polite"
      {...(live ? { 'hx-get': pollHref, 'hx-trigger': 'every 3s', 'hx-swap': 'outerHTML' } : {})}
    >
      {live && (
        <p class="hint">
          <span class="js-only">A delivery is pending: this log updates by itself.</span>
          <noscript>A delivery is pending: reload the page to follow it.</noscript>
        </p>
      )}
      {deliveries.length === 0 ? (
        <p class="empty-state">No deliveries yet. Send test sends one now.</p>
      ) : (
        <Deliveries deliveries={deliveries} now={now} zone={zone} />
      )}
    </div>
  );
}

function Deliveries({ deliveries, now, zone }: Omit<DeliveryLogProps, 'pollHref'>) {
  return (
    <div class="table-scroll">
      <table class="table delivery-log">
        <thead>
          <tr>
            <th scope="col">Queued</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-delivery={delivery.id}>
              <td>
                <RelativeTime date={new Date(delivery.createdAt)} now={now} zone={zone} />
              </td>
              <td>
                <code>{delivery.kind}</code>
              </td>
              <td>
                <span class={`delivery-status delivery-status-${delivery.status}`}>{STATUS_TEXT[delivery.status] ?? delivery.status}</span>
                {delivery.nextAttemptAt && (
                  <span class="delivery-next muted">
                    {' '}
                    next try <RelativeTime date={new Date(delivery.nextAttemptAt)} now={now} zone={zone} />
                  </span>
                )}
              </td>
              <td>
                {(delivery.attemptLog ?? []).length === 0 ? (
                  <span class="muted">none yet</span>
                ) : (
                  <ol class="attempt-list">
                    {(delivery.attemptLog ?? []).map((attempt) => (
                      <li key={attempt.at} class="attempt">
                        <RelativeTime date={new Date(attempt.at)} now={now} zone={zone} />
                        {' · '}
                        {attempt.statusCode === null ? 'no answer' : `HTTP ${attempt.statusCode}`}
                        {' · '}
                        {`${attempt.latencyMs} ms`}
                        {' · '}
                        {attempt.verdict}
                        {attempt.error && <span class="attempt-error">{attempt.error}</span>}
                      </li>
                    ))}
                  </ol>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
