// How a consumer group's partitions are split among its members. A plain round-robin assigner
// hands every member partitions of every topic any member subscribed to, so a group whose
// members read different topics (the dispatcher runs one consumer per topic in one group) would
// leave partitions unread. This one gives each topic's partitions only to its subscribers.
import type { GroupPartitionsAssigner, GroupPartitionsAssignments } from '@platformatic/kafka';
import { compareText } from '../../core/compare-text.ts';

/**
 * The group protocol's name, the same as the kafkajs consumers of earlier versions announced:
 * during a rolling upgrade old and new members agree on it, and either can lead the group.
 */
export const ASSIGNER_PROTOCOL = { name: 'ErrataSubscribedRoundRobin', version: 0 } as const;

interface GroupMemberTopics {
  memberId: string;
  topics: string[];
}

/**
 * Each topic's partitions go round-robin over the members subscribed to it, in member-id
 * order. The turn carries over between topics with the same subscribers, so members that read
 * several small topics still get an even share overall.
 */
export function assignPartitions(
  members: GroupMemberTopics[],
  partitionsByTopic: Map<string, number[]>,
): Map<string, Record<string, number[]>> {
  const assignment = new Map<string, Record<string, number[]>>(members.map((m) => [m.memberId, {}]));
  const sorted = [...members].sort((a, b) => compareText(a.memberId, b.memberId));
  const turns = new Map<string, number>();
  for (const topic of [...partitionsByTopic.keys()].sort()) {
    const subscribers = sorted.filter((m) => m.topics.includes(topic));
    if (subscribers.length === 0) continue;
    const setKey = subscribers.map((m) => m.memberId).join('\u0000');
    let turn = turns.get(setKey) ?? 0;
    for (const partition of [...partitionsByTopic.get(topic)!].sort((a, b) => a - b)) {
      const member = assignment.get(subscribers[turn % subscribers.length]!.memberId)!;
      (member[topic] ??= []).push(partition);
      turn += 1;
    }
    turns.set(setKey, turn);
  }
  return assignment;
}

/** The leader's assigner, in the shape @platformatic/kafka calls it (its metadata covers every member's topics). */
export const subscribedRoundRobin: GroupPartitionsAssigner = (_leader, members, _topics, metadata) => {
  const decoded = [...members.values()].map((m) => ({ memberId: m.memberId, topics: m.topics ?? [] }));
  const partitions = new Map<string, number[]>();
  for (const topic of new Set(decoded.flatMap((m) => m.topics))) {
    const found = metadata.topics.get(topic);
    if (found)
      partitions.set(
        topic,
        Array.from({ length: found.partitionsCount }, (_, i) => i),
      );
  }
  const assignment = assignPartitions(decoded, partitions);
  return decoded.map(({ memberId }): GroupPartitionsAssignments => {
    const byTopic = assignment.get(memberId) ?? {};
    return {
      memberId,
      assignments: new Map(Object.entries(byTopic).map(([topic, list]) => [topic, { topic, partitions: list }])),
    };
  });
};
