// Which issues are spiking: events in the window at least 3 times the issue's average over
// the 24 windows before it, and at least 10 events (so 1 -> 3 is not a spike).
const SPIKE_FACTOR = 3;
const SPIKE_MIN_EVENTS = 10;
export const BASELINE_WINDOWS = 24;

interface Spike {
  issueId: number;
  count: number;
  /** Average events per window over the baseline. */
  baselineAverage: number;
}

/**
 * `current`: events per issue in the window; `baseline`: over the `windows` windows before it
 * (BASELINE_WINDOWS, or fewer when retention keeps less history; 0 means no history).
 */
export function findSpikes(current: Map<number, number>, baseline: Map<number, number>, windows = BASELINE_WINDOWS): Spike[] {
  const spikes: Spike[] = [];
  for (const [issueId, count] of current) {
    const baselineAverage = windows > 0 ? (baseline.get(issueId) ?? 0) / windows : 0;
    if (count >= SPIKE_MIN_EVENTS && count >= SPIKE_FACTOR * baselineAverage) spikes.push({ issueId, count, baselineAverage });
  }
  // Largest rise first; the ratio to a baseline of zero counts as the count itself.
  const rise = (s: Spike) => s.count / Math.max(1, s.baselineAverage);
  return spikes.sort((a, b) => rise(b) - rise(a) || b.count - a.count);
}
