import { describe, expect, it } from 'vitest';
import { aggregateOccurrences, mergeGroups, type Occurrence } from './occurrence.ts';

function occurrence(overrides: Partial<Occurrence>): Occurrence {
  return {
    projectId: 1,
    eventId: 'e',
    hashes: ['h1'],
    title: 'Error: x',
    culprit: 'f(app.js)',
    level: 'error',
    type: 'error',
    metadata: {},
    timestamp: 100,
    environment: null,
    release: null,
    userKey: null,
    tags: {},
    ...overrides,
  };
}

describe('aggregateOccurrences', () => {
  it('folds occurrences per project and primary hash, keeping the newest facts', () => {
    const groups = aggregateOccurrences([
      occurrence({ eventId: 'a', timestamp: 200, title: 'newest', environment: 'prod', userKey: 'id:1' }),
      occurrence({ eventId: 'b', timestamp: 100, title: 'oldest', environment: 'staging', release: '1.0', userKey: 'id:1' }),
      occurrence({ eventId: 'c', hashes: ['h2'] }),
      occurrence({ eventId: 'd', projectId: 2 }),
      occurrence({ eventId: 'e', timestamp: 150, hashes: ['h1', 'h9'], release: '1.1', userKey: 'id:2' }),
    ]);
    expect(groups).toHaveLength(3);
    const [first] = groups;
    expect(first).toMatchObject({
      projectId: 1,
      hashes: ['h1', 'h9'],
      eventIds: ['a', 'b', 'e'],
      count: 3,
      firstSeen: 100,
      lastSeen: 200,
      environments: ['prod', 'staging'],
      releases: ['1.0', '1.1'],
      userKeys: ['id:1', 'id:2'],
    });
    expect(first!.latest.title).toBe('newest');
    expect(first!.earliest.title).toBe('oldest');
  });
});

describe('mergeGroups', () => {
  it('folds groups into one, newest facts from the newest group', () => {
    const groups = aggregateOccurrences([
      occurrence({ eventId: 'a', hashes: ['h1', 's'], timestamp: 100, title: 'old', environment: 'staging', userKey: 'id:1' }),
      occurrence({ eventId: 'b', hashes: ['h2', 's'], timestamp: 300, title: 'new', environment: 'prod', userKey: 'id:2' }),
      occurrence({ eventId: 'c', hashes: ['h2'], timestamp: 50, userKey: 'id:1' }),
    ]);
    const merged = mergeGroups(groups);
    expect(merged).toMatchObject({
      count: 3,
      firstSeen: 50,
      lastSeen: 300,
      hashes: ['h1', 's', 'h2'],
      eventIds: ['a', 'b', 'c'],
      environments: ['staging', 'prod'],
      userKeys: ['id:1', 'id:2'],
    });
    expect(merged.latest.title).toBe('new');
    expect(merged.earliest.eventId).toBe('c');
  });
});
