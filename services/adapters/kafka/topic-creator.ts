// Creates the queue's topics on the broker when absent (brokers in this setup do not
// auto-create them): at start-up for the topics the role is told about, and before the first
// publish or subscription to any other. Each topic is settled once per process, however many ask.
import type { Admin } from 'kafkajs';

interface TopicSettings {
  partitions: number;
  /** -1: the broker's default.replication.factor. */
  replicationFactor: number;
  /** The topic's max.message.bytes: the largest record batch the broker accepts. */
  maxMessageBytes: number;
}

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
    // Another process may create the same topic at the same moment; kafkajs then answers false.
    await this.admin.createTopics({
      waitForLeaders: true,
      topics: absent.map((topic) => ({
        topic,
        numPartitions: this.settings.partitions,
        replicationFactor: this.settings.replicationFactor,
        configEntries: [{ name: 'max.message.bytes', value: String(this.settings.maxMessageBytes) }],
      })),
    });
  }
}
