// A backlog in the standalone server is worked off in calls of up to 1,000 events (twice the
// distributed dispatcher's 500; backend-thread.ts says why). The backlog is made by writing
// events into a stopped server's queue with the queue's own code, as ingest would have, so the
// backend finds all of them waiting when it starts.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalQueue } from '../../services/adapters/local-queue/local-queue.ts';
import { encodeQueuedItem, TOPICS } from '../../services/core/pipeline/queued-item.ts';
import { waitForIssue } from '../support/issues.ts';
import { metricTotal } from '../support/metrics.ts';
import { provision, startServer, stopAndRemove } from '../support/standalone-server.ts';

const BACKLOG = 1200;

async function writeBacklog(dataDir: string, projectId: number): Promise<void> {
  const queue = new LocalQueue(join(dataDir, 'queue'));
  try {
    const records = Array.from({ length: BACKLOG }, (_, n) => {
      const id = randomUUID().replace(/-/g, '');
      const header = { v: 1 as const, kind: 'event' as const, id, projectId, organizationId: 1, receivedAt: Date.now() / 1000 };
      const payload = { event_id: id, message: `Backlog ${n}`, fingerprint: ['backlog'], level: 'error' };
      return { key: `${projectId}:${id}`, value: encodeQueuedItem({ header, payload: Buffer.from(JSON.stringify(payload)) }) };
    });
    await queue.publish(TOPICS.events, records);
  } finally {
    await queue.close();
  }
}

describe('a backlog in the standalone server', () => {
  it('is worked off in calls of more than 500 events and at most 1,000', async () => {
    const first = await startServer();
    const project = await provision(first);
    expect(await first.stop()).toBe(0);
    await writeBacklog(first.dataDir, project.projectId);

    const server = await startServer({ dataDir: first.dataDir });
    try {
      const issue = await waitForIssue(server, project, 'Backlog', BACKLOG);
      expect(issue.count).toBe(BACKLOG);

      const batch = (le: string) => metricTotal(server, 'errata_store_write_batch_size_bucket', { store: 'events', le });
      const calls = await metricTotal(server, 'errata_store_write_batch_size_count', { store: 'events' });
      // 1,000 then 200 when the backend started after the backlog was written; more calls if it
      // took the first records before the rest were readable. Either way one call held more
      // than 500 (with 500 a call, none could), and none more than 1,000.
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(await batch('500')).toBeLessThan(calls);
      expect(await batch('1000')).toBe(calls);
    } finally {
      await stopAndRemove(server);
    }
  });
});
