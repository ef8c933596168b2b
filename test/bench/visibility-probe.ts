// Accept-to-visible, as an agent sees it: while the load runs, one probe event a second, each
// with a fingerprint of its own, and one poller calling `list_issues` through the real MCP client
// (one call at a time, at most every POLL_MS) for the newest probe issues. A probe's figure is
// the time from ingest's 200 to the first call that listed it; its resolution is the polling
// interval plus one call. One poller, so a lagging server is not also flooded by the probe.
import { randomUUID } from 'node:crypto';
import { connectAgent } from '../support/mcp-client.ts';
import { percentile } from './load.ts';

const POLL_MS = 100;
const PROBE_TYPE = 'VisibilityProbe';

function probeEnvelope(marker: string): string {
  const eventId = randomUUID().replace(/-/g, '');
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: 'python',
    level: 'error',
    fingerprint: [marker],
    exception: { values: [{ type: PROBE_TYPE, value: marker }] },
  };
  const payload = JSON.stringify(event);
  return `${JSON.stringify({ event_id: eventId })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) })}\n${payload}\n`;
}

/** One probe: its place in the sending order (the k-th is sent about k + 1 s into the load), and its accept-to-visible time in ms (Infinity: never listed). */
interface ProbeTime {
  index: number;
  ms: number;
}

/** What the probe saw: each accepted probe's time, and the places of those ingest did not accept. */
interface ProbeResult {
  times: ProbeTime[];
  /** Probes ingest refused, or whose request failed or took longer than SEND_TIMEOUT_MS: never timed. */
  notAccepted: number[];
}

interface Probe {
  /** Stops sending probes, waits for those in flight, then up to `waitMs` for those not yet listed. */
  stop(waitMs: number): Promise<ProbeResult>;
}

/** A probe not accepted within this is counted as not accepted, so that stop() never hangs on one. */
const SEND_TIMEOUT_MS = 30_000;

export async function startVisibilityProbe(serverUrl: string, ingestUrl: URL, token: string, project: string): Promise<Probe> {
  const agent = await connectAgent(serverUrl, token);
  const run = randomUUID().slice(0, 8);
  /** Accepted probes not yet listed, by marker: when ingest accepted them, and their place (ProbeTime). */
  const waiting = new Map<string, { accepted: number; index: number }>();
  const times: ProbeTime[] = [];
  const notAccepted: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let sending = true;
  let n = 0;
  const sender = setInterval(() => {
    const index = n++;
    const marker = `probe-${run}-${String(index).padStart(6, '0')}`; // fixed width: no marker is a prefix of another
    const send = fetch(ingestUrl, { method: 'POST', body: probeEnvelope(marker), signal: AbortSignal.timeout(SEND_TIMEOUT_MS) })
      .then(
        (response) => {
          if (response.status === 200) waiting.set(marker, { accepted: Date.now(), index });
          else notAccepted.push(index);
        },
        () => void notAccepted.push(index),
      )
      .finally(() => inFlight.delete(send));
    inFlight.add(send);
  }, 1000);
  const poll = async (until: () => boolean) => {
    while (!until()) {
      const started = Date.now();
      // The newest hundred probe issues; and the oldest probe still waiting by its own marker, since
      // after 100 s of backlog it may sit behind a hundred newer ones.
      const oldest = waiting.keys().next();
      const calls = [agent.call('list_issues', { project, query: PROBE_TYPE, limit: 100 })];
      if (!oldest.done) calls.push(agent.call('list_issues', { project, query: `"${oldest.value}"`, limit: 1 }));
      const text = (await Promise.all(calls)).map((r) => (r.isError ? '' : r.text)).join('\n');
      const now = Date.now();
      for (const [marker, { accepted, index }] of waiting) {
        if (text.includes(marker)) {
          times.push({ index, ms: now - accepted });
          waiting.delete(marker);
        }
      }
      await new Promise((r) => setTimeout(r, Math.max(0, POLL_MS - (Date.now() - started))));
    }
  };
  const polling = poll(() => !sending);
  return {
    async stop(waitMs) {
      clearInterval(sender);
      await Promise.all(inFlight);
      sending = false;
      await polling;
      const deadline = Date.now() + waitMs;
      await poll(() => waiting.size === 0 || Date.now() > deadline);
      await agent.close();
      return { times: [...times, ...[...waiting.values()].map(({ index }) => ({ index, ms: Infinity }))], notAccepted };
    },
  };
}

/**
 * A server's first seconds under a load are its slowest (on a fresh server its code is not yet
 * optimized; in any, the load's first issues are created rather than updated), and in a short run
 * they decide the p95: so the figures are also given without the first WARM_UP_PROBES probes,
 * those sent in the load's first WARM_UP_PROBES seconds, for a server in service.
 */
const WARM_UP_PROBES = 5;

/** One line of figures from what `stop` returned. */
export function describeVisibility({ times, notAccepted }: ProbeResult): string {
  const warm = times.filter((p) => p.index >= WARM_UP_PROBES);
  const warmNotAccepted = notAccepted.filter((index) => index >= WARM_UP_PROBES);
  const line = `accepted to listed by list_issues ${figures(times, notAccepted.length)}`;
  return warm.length + warmNotAccepted.length === 0
    ? `${line}; none sent after the load's first ${WARM_UP_PROBES} s`
    : `${line}; after the load's first ${WARM_UP_PROBES} s ${figures(warm, warmNotAccepted.length)}`;
}

/** "(N probes, N not accepted, N never listed): p50 … ms, p95 … ms", the percentiles over the accepted. */
function figures(probes: ProbeTime[], notAccepted: number): string {
  // With no probe accepted there are no percentiles to give (rather than NaN).
  if (probes.length === 0) return notAccepted === 0 ? '(no probe sent)' : `(${notAccepted} probes, none accepted)`;
  const ms = probes.map((p) => p.ms);
  const never = ms.filter((m) => !Number.isFinite(m)).length;
  return (
    `(${ms.length + notAccepted} probes, ${notAccepted} not accepted, ${never} never listed): ` +
    `p50 ${percentile(ms, 50)} ms, p95 ${percentile(ms, 95)} ms`
  );
}
