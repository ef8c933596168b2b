import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../core/ports/event-store.ts';
import { topTags } from './tag-counts.ts';

function event(tags: Record<string, string>, environment: string | null = null, release: string | null = null): StoredEvent {
  return { environment, release, payload: { tags } } as unknown as StoredEvent;
}

describe('topTags', () => {
  it('counts values per key over the sample, most common first, with environment and release as tags', () => {
    const events = [
      event({ browser: 'Chrome' }, 'production', '1.0'),
      event({ browser: 'Firefox' }, 'production', '1.1'),
      event({ browser: 'Chrome', region: 'eu' }, 'staging', '1.1'),
    ];
    expect(topTags(events)).toEqual([
      {
        key: 'browser',
        total: 3,
        values: [
          { value: 'Chrome', count: 2 },
          { value: 'Firefox', count: 1 },
        ],
      },
      {
        key: 'environment',
        total: 3,
        values: [
          { value: 'production', count: 2 },
          { value: 'staging', count: 1 },
        ],
      },
      {
        key: 'release',
        total: 3,
        values: [
          { value: '1.1', count: 2 },
          { value: '1.0', count: 1 },
        ],
      },
      { key: 'region', total: 1, values: [{ value: 'eu', count: 1 }] },
    ]);
  });

  it('keeps an SDK-sent environment tag over the column, and cuts keys and values to the limits', () => {
    expect(topTags([event({ environment: 'from-tag' }, 'column')])[0]!.values).toEqual([{ value: 'from-tag', count: 1 }]);
    const many = [event(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'])))];
    expect(topTags(many, 5)).toHaveLength(5);
    const values = ['a', 'b', 'c', 'd'].map((v) => event({ k: v }));
    expect(topTags(values, 12, 2)[0]!.values.map((v) => v.value)).toEqual(['a', 'b']);
    expect(topTags([])).toEqual([]);
  });
});
