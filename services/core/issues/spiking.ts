// Which issues are rising: events in the window against the issue's average over the 24 windows
// before it. A spike is a rise against a usual rate: at least 3 times a non-zero average, and at
// least 10 events (so 1 -> 3 is not a spike). Without any events in the windows before (or without
// history kept), there is no rate to be 3 times of: 10 or more events are then a burst, told apart
// so that a quiet issue waking up (or a new one arriving loud) is not presented as "3x its usual".
const SPIKE_FACTOR = 3;
const SPIKE_MIN_EVENTS = 10;
export const BASELINE_WINDOWS = 24;

type RiseKind = 'spiking' | 'burst';

interface Rise {
  issueId: number;
  kind: RiseKind;
  count: number;
  /** Average events per window over the baseline; 0 for a burst. */
  baselineAverage: number;
}

/**
 * `current`: events per issue in the window; `baseline`: over the `windows` windows before it
 * (BASELINE_WINDOWS, or fewer when retention keeps less history; 0 means no history).
 * Spikes first, the largest rise first; then bursts, the largest first.
 */
export function findSpikes(current: Map<number, number>, baseline: Map<number, number>, windows = BASELINE_WINDOWS): Rise[] {
  const rises: Rise[] = [];
  for (const [issueId, count] of current) {
    if (count < SPIKE_MIN_EVENTS) continue;
    const baselineAverage = baselineOf(issueId, baseline, windows);
    if (baselineAverage === 0) rises.push({ issueId, kind: 'burst', count, baselineAverage });
    else if (count >= SPIKE_FACTOR * baselineAverage) rises.push({ issueId, kind: 'spiking', count, baselineAverage });
  }
  const rank = (r: Rise) => (r.kind === 'spiking' ? 0 : 1);
  const rise = (r: Rise) => (r.kind === 'spiking' ? r.count / r.baselineAverage : r.count);
  return rises.sort((a, b) => rank(a) - rank(b) || rise(b) - rise(a) || b.count - a.count);
}

/** An issue's average events per window before the window (0 without history). */
export function baselineOf(issueId: number, baseline: Map<number, number>, windows = BASELINE_WINDOWS): number {
  return windows > 0 ? (baseline.get(issueId) ?? 0) / windows : 0;
}
