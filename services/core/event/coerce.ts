// Lenient readers for SDK-supplied JSON. Field-level problems never reject an event: a value
// of the wrong shape is coerced when the intent is clear (a number where a string belongs) and
// dropped otherwise, and each drop is noted in the event's `errors` so nothing vanishes silently.
import { cutText, storableText } from '../storable-text.ts';

export interface NormalizationNote {
  type: 'invalid_data' | 'value_too_long' | 'future_timestamp' | 'past_timestamp' | 'too_deep';
  name: string;
  value?: unknown;
}

export type Notes = NormalizationNote[];

export type JsonRecord = Record<string, unknown>;

/**
 * Sets a property whose name came from a payload. Plain assignment takes `__proto__` as the
 * object's prototype: the key was lost, and the object inherited whatever the sender put there
 * (a top-level `"__proto__": {"exception": ...}` made normalization throw).
 */
export function setOwn(target: JsonRecord, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * A table's entry for a key that came from input, among its own keys only: a plain lookup finds
 * Object.prototype's members for "constructor", "toString" or "__proto__".
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

export function isRecord(value: unknown): value is JsonRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// Ingest's normalizers take it from here with the other readers.
export { cutText, storableText };

/** Strings as given, made storable; finite numbers and booleans as text (SDKs send release `1.2` as a number). */
export function lenientString(value: unknown): string | undefined {
  if (typeof value === 'string') return storableText(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

/** A string field with a length cap; a longer value is cut and the cut is noted. */
export function cappedString(value: unknown, max: number, name: string, notes: Notes): string | undefined {
  const text = lenientString(value);
  if (text === undefined) {
    if (value !== undefined && value !== null) notes.push({ type: 'invalid_data', name, value: describe(value) });
    return undefined;
  }
  if (text.length > max) {
    notes.push({ type: 'value_too_long', name, value: text.length });
    return cutText(text, max);
  }
  return text;
}

export function nonNegativeInt(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The SDKs' three spellings of a list: `{"values": [...]}`, a bare array, or one object
 * standing for a list of one. `{}` is an empty list.
 */
export function valuesOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isRecord(value)) {
    if (Array.isArray(value.values)) return value.values;
    if ('values' in value || Object.keys(value).length === 0) return [];
    return [value];
  }
  return [];
}

export function stringList(value: unknown, maxItems: number, maxLength: number): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const item of value.slice(0, maxItems)) {
    const text = lenientString(item);
    if (text !== undefined) out.push(cutText(text, maxLength));
  }
  return out;
}

const DEPTH_MARKER = '[truncated: nested too deeply]';

/**
 * Markers one event (or one copy outside an event) writes; past them a container nested too
 * deeply becomes null. A marker is 32 bytes in place of as little as `[0]`, and 1 MiB of such
 * leaves made an event of 10 MiB to serialize and hold (a batch of them past the dispatcher's
 * heap). Per event, not per copy: an event makes a copy per unknown field, context and frame.
 */
const MAX_DEPTH_MARKERS = 100;

// Markers left to the event or copy under way. Both run from start to end without yielding, so
// one counter serves them all (an object per copy was measurable: this runs for every breadcrumb).
let markersLeft = 0;
let inEvent = false;

/** Runs `normalize` (one event's or record's normalization) with one budget of depth markers for all its copies. */
export function withDepthMarkerBudget<T>(normalize: () => T): T {
  // Within another budget (nothing nests today) the outer one goes on counting.
  if (inEvent) return normalize();
  markersLeft = MAX_DEPTH_MARKERS;
  inEvent = true;
  try {
    return normalize();
  } finally {
    inEvent = false;
  }
}

/**
 * Copies arbitrary JSON (extra, contexts, breadcrumb data, frame vars) with bounds on depth,
 * string length and collection size. Iterative bounds keep hostile nesting from exhausting the
 * stack. An empty object or array past the depth is kept as it is: it says all there is.
 */
export function boundedJson(value: unknown, maxDepth: number, maxString = 8192, maxItems = 200): unknown {
  if (!inEvent) markersLeft = MAX_DEPTH_MARKERS;
  return boundedCopy(value, maxDepth, maxString, maxItems);
}

function boundedCopy(value: unknown, maxDepth: number, maxString: number, maxItems: number): unknown {
  if (typeof value === 'string') return storableText(value.length > maxString ? `${cutText(value, maxString)}…` : value);
  if (value === null || typeof value !== 'object') {
    return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
  }
  if (maxDepth <= 0) return pastDepth(value);
  // Plain loops: this runs on every breadcrumb and frame, and slice().map() or Object.entries()
  // allocated an array (and one per property) for each object only to copy it.
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (let i = 0; i < value.length && i < maxItems; i++) items.push(boundedCopy(value[i], maxDepth - 1, maxString, maxItems));
    return items;
  }
  const out: JsonRecord = {};
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (count++ >= maxItems) break;
    setOwn(out, storableText(key), boundedCopy((value as JsonRecord)[key], maxDepth - 1, maxString, maxItems));
  }
  return out;
}

function pastDepth(value: object): unknown {
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
  } else if (!hasOwnKey(value)) {
    return {};
  }
  if (markersLeft <= 0) return null;
  markersLeft--;
  return DEPTH_MARKER;
}

function hasOwnKey(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : typeof value;
}
