// Offsets read through the admin client, for lag() (the errata_queue_lag metric) and for a
// draining stop: how far each partition of a topic reaches, and how far a consumer group has
// committed. A partition the group never committed counts from its earliest retained offset.
import type { Admin } from 'kafkajs';

interface PartitionRange {
  partition: number;
  /** Earliest offset still in the log. */
  low: bigint;
  /** Offset the next record will get. */
  high: bigint;
}

export async function partitionRanges(admin: Admin, topic: string): Promise<PartitionRange[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets
    .map((o) => ({ partition: o.partition, low: BigInt(o.low), high: BigInt(o.high) }))
    .sort((a, b) => a.partition - b.partition);
}

/** The group's committed offset per topic and partition; absent where it never committed. */
export async function committedOffsets(
  admin: Admin,
  groupId: string,
  topics: string[],
): Promise<Map<string, Map<number, bigint>>> {
  const out = new Map<string, Map<number, bigint>>();
  for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics })) {
    const byPartition = new Map<number, bigint>();
    for (const { partition, offset } of partitions) if (BigInt(offset) >= 0n) byPartition.set(partition, BigInt(offset));
    out.set(topic, byPartition);
  }
  return out;
}

/** Records at or after the committed position (or the earliest one) still in the log. */
export function recordsBehind(range: PartitionRange, committed: bigint | undefined): number {
  const from = committed === undefined || committed < range.low ? range.low : committed;
  return from >= range.high ? 0 : Number(range.high - from);
}
