// Offsets read through the admin client, for lag() (the errata_queue_lag metric) and for a
// draining stop: how far each partition of a topic reaches, and how far a consumer group has
// committed. A partition the group never committed counts from its earliest retained offset.
import type { Admin } from '@platformatic/kafka';

interface PartitionRange {
  partition: number;
  /** Earliest offset still in the log. */
  low: bigint;
  /** Offset the next record will get. */
  high: bigint;
}

/** ListOffsets's special timestamps: the log's start and the offset the next record will get. */
const EARLIEST = -2n;
const LATEST = -1n;

/** Rejects when the topic does not exist. */
export async function partitionRanges(admin: Admin, topic: string): Promise<PartitionRange[]> {
  const metadata = await admin.metadata({ topics: [topic] });
  const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
  const partitions = Array.from({ length: count }, (_, partition) => partition);
  // One request per timestamp: a request may name each partition only once.
  const [low, high] = await Promise.all(
    [EARLIEST, LATEST].map(async (timestamp) => {
      const listed = await admin.listOffsets({
        topics: [{ name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, timestamp })) }],
      });
      const byPartition = new Map<number, bigint>();
      for (const t of listed) for (const p of t.partitions) byPartition.set(p.partitionIndex, p.offset);
      return byPartition;
    }),
  );
  return partitions.map((partition) => ({ partition, low: low!.get(partition) ?? 0n, high: high!.get(partition) ?? 0n }));
}

/** The group's committed offset per topic and partition; absent where it never committed. */
export async function committedOffsets(
  admin: Admin,
  groupId: string,
  topics: string[],
): Promise<Map<string, Map<number, bigint>>> {
  const out = new Map<string, Map<number, bigint>>();
  // The coordinator is looked up in the client's list of brokers, which it otherwise keeps
  // unrefreshed: a broker absent from it when last read would fail the client in a callback.
  await admin.metadata({ topics: [], forceUpdate: true });
  const [group] = await admin.listConsumerGroupOffsets({ groups: [groupId] });
  for (const { name, partitions } of group?.topics ?? []) {
    if (!topics.includes(name)) continue;
    const byPartition = new Map<number, bigint>();
    for (const { partitionIndex, committedOffset } of partitions) {
      if (committedOffset >= 0n) byPartition.set(partitionIndex, committedOffset);
    }
    out.set(name, byPartition);
  }
  return out;
}

/** Records at or after the committed position (or the earliest one) still in the log. */
export function recordsBehind(range: PartitionRange, committed: bigint | undefined): number {
  const from = committed === undefined || committed < range.low ? range.low : committed;
  return from >= range.high ? 0 : Number(range.high - from);
}
