import { describe, expect, it } from 'vitest';
import { topicConfigs } from './topic-creator.ts';

describe('topicConfigs', () => {
  it('has two replicas acknowledge each record once a topic has three or more', () => {
    const settings = { partitions: 8, maxMessageBytes: 16 * 1024 * 1024 };
    const maxMessage = { name: 'max.message.bytes', value: String(16 * 1024 * 1024) };
    expect(topicConfigs({ ...settings, replicationFactor: 3 })).toEqual([
      maxMessage,
      { name: 'min.insync.replicas', value: '2' },
    ]);
    expect(topicConfigs({ ...settings, replicationFactor: 5 })).toContainEqual({ name: 'min.insync.replicas', value: '2' });
    // Fewer, or the broker's default (-1): one broker down must not stop every publish.
    for (const replicationFactor of [-1, 1, 2]) expect(topicConfigs({ ...settings, replicationFactor })).toEqual([maxMessage]);
  });
});
