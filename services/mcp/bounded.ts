// Keeps tool results a size an agent's context can hold: long strings and long lists are cut,
// and each cut says how much was left out, so nothing disappears without a trace.
import { setOwn } from '../core/event/coerce.ts';

interface Bounds {
  maxString: number;
  maxList: number;
  maxDepth: number;
}

export const DEFAULT_BOUNDS: Bounds = { maxString: 2_000, maxList: 50, maxDepth: 12 };
export const VERBOSE_BOUNDS: Bounds = { maxString: 20_000, maxList: 500, maxDepth: 24 };

export function bounded(value: unknown, bounds: Bounds = DEFAULT_BOUNDS, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= bounds.maxString) return value;
    return `${value.slice(0, bounds.maxString)}…[truncated ${value.length - bounds.maxString} characters]`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= bounds.maxDepth) return '[truncated: nested too deeply]';
  if (Array.isArray(value)) {
    const kept = value.slice(0, bounds.maxList).map((item) => bounded(item, bounds, depth + 1));
    if (value.length > bounds.maxList) kept.push(`[truncated ${value.length - bounds.maxList} more items]`);
    return kept;
  }
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value);
  for (const [key, item] of entries.slice(0, bounds.maxList * 4)) setOwn(out, key, bounded(item, bounds, depth + 1));
  if (entries.length > bounds.maxList * 4) out['…'] = `[truncated ${entries.length - bounds.maxList * 4} more keys]`;
  return out;
}

/**
 * At most `max` entries from the end of a list (breadcrumbs and stack frames come oldest first;
 * the newest matter), the first of them a note saying how many older `noun` were cut.
 */
export function lastWithNote<T>(items: T[], max: number, noun: string): Array<T | string> {
  if (items.length <= max) return items;
  return [`[truncated ${items.length - (max - 1)} older ${noun}]`, ...items.slice(-(max - 1))];
}
