// How a consumer group's partitions are split among its members. kafkajs's round-robin
// assigner hands every member partitions of every topic the leader subscribed to, so a group
// whose members read different topics (the dispatcher runs one consumer per topic in one group)
// would leave partitions unread. This one gives each topic's partitions only to its subscribers.
import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

const ASSIGNER_NAME = 'ErrataSubscribedRoundRobin';

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
  const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
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

export const subscribedRoundRobin: PartitionAssigner = ({ cluster }) => ({
  name: ASSIGNER_NAME,
  version: 0,
  async assign({ members }) {
    const decoded = members.map((member) => ({
      memberId: member.memberId,
      topics: AssignerProtocol.MemberMetadata.decode(member.memberMetadata)?.topics ?? [],
    }));
    const topics = [...new Set(decoded.flatMap((m) => m.topics))];
    // The leader's metadata covers its own topics only; other members may read other topics.
    await cluster.addMultipleTargetTopics(topics);
    const partitions = new Map(topics.map((t) => [t, cluster.findTopicPartitionMetadata(t).map((p) => p.partitionId)]));
    const assignment = assignPartitions(decoded, partitions);
    return decoded.map(({ memberId }) => ({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 0,
        assignment: assignment.get(memberId) ?? {},
        userData: Buffer.alloc(0),
      }),
    }));
  },
  protocol({ topics }) {
    return {
      name: ASSIGNER_NAME,
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    };
  },
});
