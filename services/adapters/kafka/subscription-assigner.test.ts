import { describe, expect, it } from 'vitest';
import type { ClusterMetadata, ExtendedGroupProtocolSubscription } from '@platformatic/kafka';
import { assignPartitions, subscribedRoundRobin } from './subscription-assigner.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('assignPartitions', () => {
  it('gives each topic only to the members subscribed to it', () => {
    const assignment = assignPartitions(
      [
        { memberId: 'events-1', topics: ['events.received'] },
        { memberId: 'logs-1', topics: ['logs.received'] },
        { memberId: 'events-2', topics: ['events.received'] },
      ],
      new Map([
        ['events.received', range(8)],
        ['logs.received', range(8)],
      ]),
    );
    expect(assignment.get('events-1')).toEqual({ 'events.received': [0, 2, 4, 6] });
    expect(assignment.get('events-2')).toEqual({ 'events.received': [1, 3, 5, 7] });
    expect(assignment.get('logs-1')).toEqual({ 'logs.received': range(8) });
  });

  it('evens out small topics across members that read the same ones', () => {
    const assignment = assignPartitions(
      [
        { memberId: 'b', topics: ['t1', 't2'] },
        { memberId: 'a', topics: ['t1', 't2'] },
      ],
      new Map([
        ['t1', [0, 1, 2]],
        ['t2', [0, 1, 2]],
      ]),
    );
    expect(assignment.get('a')).toEqual({ t1: [0, 2], t2: [1] });
    expect(assignment.get('b')).toEqual({ t1: [1], t2: [0, 2] });
  });

  it('leaves a member with nothing when there are more members than partitions', () => {
    const assignment = assignPartitions(
      [
        { memberId: 'a', topics: ['t'] },
        { memberId: 'b', topics: ['t'] },
      ],
      new Map([['t', [0]]]),
    );
    expect(assignment.get('a')).toEqual({ t: [0] });
    expect(assignment.get('b')).toEqual({});
  });
});

describe('subscribedRoundRobin, as @platformatic/kafka calls it on the group leader', () => {
  it('reads the members’ topics and the partition counts, and answers in the client’s shape', () => {
    const member = (memberId: string, topics: string[]): [string, ExtendedGroupProtocolSubscription] => [
      memberId,
      { memberId, topics, version: 0 },
    ];
    const members = new Map([member('events-1', ['events.received']), member('logs-1', ['logs.received'])]);
    const topic = (partitionsCount: number) => ({ id: 'x', partitions: [], partitionsCount, lastUpdate: 0 });
    const metadata = {
      topics: new Map([
        ['events.received', topic(2)],
        ['logs.received', topic(3)],
      ]),
    } as unknown as ClusterMetadata;
    const assigned = subscribedRoundRobin('events-1', members, new Set(['events.received']), metadata);
    expect(assigned.map((m) => [m.memberId, [...m.assignments.values()]])).toEqual([
      ['events-1', [{ topic: 'events.received', partitions: [0, 1] }]],
      ['logs-1', [{ topic: 'logs.received', partitions: [0, 1, 2] }]],
    ]);
  });
});
