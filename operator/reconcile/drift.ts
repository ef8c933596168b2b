// Whether a live object lost what the operator set on it. A hand edit (`kubectl scale`,
// `kubectl set image`, a ConfigMap edited in place) leaves the spec-hash annotation as it was,
// so the hash alone never sees it; comparing each field the desired object sets does, with no
// request beyond the listing the pass already made. Fields the API server adds (defaults,
// status, other annotations) are not drift.
import { quantityValue } from '../api/quantity.ts';

/**
 * Where quantities are: the values of a container's `requests` and `limits`. Only there is
 * another spelling the same value; elsewhere `8000` and `8k` (a ConfigMap's port) differ.
 */
const QUANTITY_MAPS = new Set(['requests', 'limits']);

/** What the value at a path is: a map of quantities, a quantity, or anything else. */
type Place = 'plain' | 'quantities' | 'quantity';

/** Every field `desired` sets is in `live` with the same value; arrays must match in length. */
function holds(desired: unknown, live: unknown, place: Place = 'plain'): boolean {
  // The API server leaves out an empty string (env `value: ""`), and writes quantities its own
  // way (0.5 as 500m, 1024Mi as 1Gi): neither is a hand edit, and taking them for one applied
  // the object again on every pass.
  if (desired === '' && live === undefined) return true;
  if (typeof desired === 'string' && typeof live === 'string' && desired !== live) {
    return place === 'quantity' && sameQuantity(desired, live);
  }
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((d, i) => holds(d, live[i]));
  }
  if (desired !== null && typeof desired === 'object') {
    // An empty map the API server leaves out (`resources: {limits: {}}`) holds as well.
    const fields = live === undefined ? {} : live;
    if (fields === null || typeof fields !== 'object') return false;
    return Object.entries(desired).every(
      ([key, value]) =>
        value === undefined ||
        holds(
          value,
          (fields as Record<string, unknown>)[key],
          place === 'quantities' ? 'quantity' : QUANTITY_MAPS.has(key) ? 'quantities' : 'plain',
        ),
    );
  }
  return desired === live;
}

/** The object's content (spec, data) and its labels and annotations, as the operator builds them. */
export function drifted(desired: { metadata: { labels: object; annotations: object } }, live: object): boolean {
  const { apiVersion: _v, kind: _k, metadata, ...content } = desired as typeof desired & { apiVersion: string; kind: string };
  const liveMetadata = (live as { metadata?: object }).metadata;
  return !holds({ labels: metadata.labels, annotations: metadata.annotations }, liveMetadata) || !holds(content, live);
}

/** Equal but for floating point: 0.7 and 700m are 0.7 and 0.7000000000000001 as doubles. */
function sameQuantity(a: string, b: string): boolean {
  const x = quantityValue(a);
  const y = quantityValue(b);
  // A tolerance of a few units in the last place, no more: 1000000000 and 1000000001 differ.
  return x !== undefined && y !== undefined && Math.abs(x - y) <= 1e-12 * Math.max(Math.abs(x), Math.abs(y));
}
