// Creates the queue's topics on the broker when absent (brokers in this setup do not
// auto-create them): at start-up for the topics the role is told about, and before the first
// publish or subscription to any other. Each topic is settled once per process, however many ask.
import { setTimeout as delay } from 'node:timers/promises';
import type { Admin } from '@platformatic/kafka';
import { onlyKafkaError } from './kafka-error.ts';

interface TopicSettings {
  partitions: number;
  /** -1: the broker's default.replication.factor. */
  replicationFactor: number;
  /** The topic's max.message.bytes: the largest record batch the broker accepts. */
  maxMessageBytes: number;
}

/**
 * The configs a new topic gets. With three or more replicas, a record is acknowledged (the
 * producer's acks=-1) once two hold it: Kafka's default min.insync.replicas of 1 let a leader
 * whose followers had fallen behind acknowledge alone, and a record ingest had answered 200 for
 * was lost with that one disk. Fewer replicas keep the default, so that one broker down does not
 * stop every publish.
 */
export function topicConfigs(settings: TopicSettings): Array<{ name: string; value: string }> {
  return [
    { name: 'max.message.bytes', value: String(settings.maxMessageBytes) },
    ...(settings.replicationFactor >= 3 ? [{ name: 'min.insync.replicas', value: '2' }] : []),
  ];
}

/** How long a new topic's partitions may take to get leaders, and how often to look. */
const LEADER_WAIT_MS = 10_000;
const LEADER_POLL_MS = 100;

export class TopicCreator {
  private readonly settled = new Map<string, Promise<void>>();
  /** Topics known to exist: a publish to one of them needs no admin round trip, promise or timer. */
  private readonly existing = new Set<string>();

  constructor(
    private readonly admin: Admin,
    private readonly settings: TopicSettings,
  ) {}

  exists(topic: string): boolean {
    return this.existing.has(topic);
  }

  async ensure(topics: string[]): Promise<void> {
    const missing = topics.filter((topic) => !this.settled.has(topic));
    if (missing.length > 0) {
      const created = this.create(missing);
      for (const topic of missing) {
        const settled = created.catch((error: unknown) => {
          // Not settled after all: the next caller tries again.
          this.settled.delete(topic);
          throw error;
        });
        settled.catch(() => {});
        this.settled.set(topic, settled);
      }
    }
    await Promise.all(topics.map((topic) => this.settled.get(topic)));
    for (const topic of topics) this.existing.add(topic);
  }

  private async create(topics: string[]): Promise<void> {
    const existing = new Set(await this.admin.listTopics());
    const absent = topics.filter((topic) => !existing.has(topic));
    if (absent.length === 0) return;
    try {
      await this.admin.createTopics({
        topics: absent,
        partitions: this.settings.partitions,
        replicas: this.settings.replicationFactor,
        configs: topicConfigs(this.settings),
      });
    } catch (error) {
      // Another process may have created the same topics since they were listed.
      if (!onlyKafkaError(error, 'TOPIC_ALREADY_EXISTS')) throw error;
    }
    await this.leadersElected(absent);
  }

  /** Until every partition of the topics has a leader: a publish or fetch before that fails. */
  private async leadersElected(topics: string[]): Promise<void> {
    const deadline = Date.now() + LEADER_WAIT_MS;
    for (;;) {
      try {
        // Answers LEADER_NOT_AVAILABLE while any partition has no leader.
        await this.admin.metadata({ topics, forceUpdate: true });
        return;
      } catch (error) {
        if (this.admin.closed) {
          throw new Error(`the queue closed while waiting for leaders of ${topics.join(', ')}`, { cause: error });
        }
        if (Date.now() >= deadline) {
          throw new Error(`no leader was elected for ${topics.join(', ')} within ${LEADER_WAIT_MS} ms`, { cause: error });
        }
      }
      await delay(LEADER_POLL_MS);
    }
  }
}
