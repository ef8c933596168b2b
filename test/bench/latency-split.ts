// Where an accept latency's tail comes from, from three views of the same requests: the load
// generator's (every answer; it shares the machine's cores, so its own waits for CPU are in it
// too), ingest's handling of each answered 200 (errata_http_request_duration_seconds, from the
// first middleware until the middleware chain returns, before the answer is written), and the
// part of that spent until the broker acknowledged the records (errata_queue_produce_duration_seconds,
// one per request that published: the producer's spacing of its requests, up to 3 ms, and the
// broker's round trip; the visibility probe's one request a second is in both of ingest's
// figures). Ingest's figures come from two scrapes of its /metrics, before and after the
// load, so they are counted in its histogram buckets.
import { metricTotalIn } from '../support/metrics.ts';

/** Bucket bounds both histograms have, in seconds. */
const THRESHOLDS = [0.01, 0.025, 0.05];

interface Histogram {
  name: string;
  labels: Record<string, string>;
}

const HANDLING: Histogram = {
  name: 'errata_http_request_duration_seconds_bucket',
  labels: { route: '/api/{id}/envelope/', status: '200' },
};
const PRODUCE: Histogram = { name: 'errata_queue_produce_duration_seconds_bucket', labels: { topic: 'events.received' } };

/** The percentages of requests over 10, 25 and 50 ms, at the client, in ingest's handling, and waiting for the broker. */
export function describeLatencySplit(clientLatenciesMs: number[], before: string, after: string): string {
  const client = THRESHOLDS.map((s) => share(clientLatenciesMs.filter((ms) => ms > s * 1000).length, clientLatenciesMs.length));
  const fromMetrics = (metric: Histogram) => {
    const count = (le: string) =>
      metricTotalIn(after, metric.name, { ...metric.labels, le }) - metricTotalIn(before, metric.name, { ...metric.labels, le });
    const total = count('+Inf');
    return THRESHOLDS.map((s) => share(total - count(String(s)), total));
  };
  const line = (values: string[]) => values.join(' / ');
  return (
    `requests over 10 / 25 / 50 ms: at the load generator ${line(client)}; in ingest's handling ${line(fromMetrics(HANDLING))}; ` +
    `of which waiting for the queue (the producer's spacing and the broker's acknowledgement) ${line(fromMetrics(PRODUCE))}`
  );
}

function share(part: number, total: number): string {
  return total === 0 ? '-' : `${((100 * part) / total).toFixed(2)}%`;
}
