// Tag counts over a sample of an issue's events: each key with its most common values, keys
// seen most often first (Sentry's tag summary, from a bounded sample rather than every event).
import type { StoredEvent } from '../../../core/ports/event-store.ts';

export interface TagCount {
  key: string;
  /** Events in the sample that carry the key. */
  total: number;
  /** The most common values, most common first. */
  values: { value: string; count: number }[];
}

export function topTags(events: StoredEvent[], maxKeys = 12, maxValues = 3): TagCount[] {
  const byKey = new Map<string, Map<string, number>>();
  for (const event of events) {
    const tags: Record<string, string> = { ...event.payload.tags };
    // The columns every event has count as tags too, as Sentry shows them.
    if (event.environment) tags.environment ??= event.environment;
    if (event.release) tags.release ??= event.release;
    for (const [key, value] of Object.entries(tags)) {
      const values = byKey.get(key) ?? new Map<string, number>();
      values.set(value, (values.get(value) ?? 0) + 1);
      byKey.set(key, values);
    }
  }
  return [...byKey]
    .map(([key, values]) => ({
      key,
      total: [...values.values()].reduce((a, b) => a + b, 0),
      values: [...values]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
        .slice(0, maxValues),
    }))
    .sort((a, b) => b.total - a.total || a.key.localeCompare(b.key))
    .slice(0, maxKeys);
}
