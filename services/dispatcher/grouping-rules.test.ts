import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { encodeQueuedItem } from '../core/pipeline/queued-item.ts';
import type { BatchHandler, DeliveredRecord } from '../core/ports/queue.ts';
import { createLogger } from '../runtime/logger.ts';
import { createMetrics, outcomeRecorder } from '../runtime/metrics.ts';
import { eventPipeline } from './event-pipeline.ts';

let stores: EmbeddedStores;
let projectId: number;
let organizationId: number;
let events: BatchHandler;
const metrics = createMetrics({ processMetrics: false });

beforeAll(async () => {
  stores = await openEmbeddedStores();
  const org = await stores.metadata.ensureOrganization('default', 'Default');
  organizationId = org.id;
  const created = await stores.metadata.createProject(
    { organizationId: org.id, slug: 'rules', name: 'Rules' },
    { publicKey: 'r'.repeat(32), label: 'Default' },
  );
  projectId = created.project.id;
  events = eventPipeline({
    metadata: stores.metadata,
    events: stores.events,
    outcomes: outcomeRecorder(metrics, 'dispatcher'),
    metrics,
    logger: createLogger('silent'),
  });
});
afterAll(() => stores.close());

let offset = 0;
function record(id: string, type: string, functionName: string): DeliveredRecord {
  const payload = {
    platform: 'python',
    exception: {
      values: [
        { type, value: 'down', stacktrace: { frames: [{ function: functionName, filename: 'app/db.py', in_app: true }] } },
      ],
    },
  };
  offset += 1;
  const header = {
    v: 1 as const,
    kind: 'event' as const,
    id,
    projectId,
    organizationId,
    receivedAt: Date.UTC(2026, 10, 24) / 1000,
  };
  return {
    topic: 'event',
    partition: 0,
    offset: String(offset),
    key: id,
    value: encodeQueuedItem({ header, payload: Buffer.from(JSON.stringify(payload)) }),
  };
}

async function issueOf(eventId: string): Promise<number | undefined> {
  return (await stores.events.getEvent(projectId, eventId))?.issueId;
}

describe("the event pipeline groups by the project's grouping rules", () => {
  it('applies rules set in the store to the next batch, leaving earlier events in their issues', async () => {
    await events([record('1'.repeat(32), 'PrimaryDown', 'connect'), record('2'.repeat(32), 'ReplicaDown', 'connect')]);
    const [before1, before2] = [await issueOf('1'.repeat(32)), await issueOf('2'.repeat(32))];
    expect(before1).not.toBe(before2);

    await stores.metadata.setGroupingRules(projectId, {
      fingerprintRules: 'error.type:*Down -> database-down title="Database down"',
    });
    await events([record('3'.repeat(32), 'PrimaryDown', 'connect'), record('4'.repeat(32), 'ReplicaDown', 'connect')]);
    const [after3, after4] = [await issueOf('3'.repeat(32)), await issueOf('4'.repeat(32))];
    expect(after3).toBe(after4);
    expect(after3).not.toBe(before1);
    expect((await stores.metadata.getIssue(after3!))?.title).toBe('Database down');
    expect([await issueOf('1'.repeat(32)), await issueOf('2'.repeat(32))]).toEqual([before1, before2]);
  });

  it('groups without a stored text that no longer parses, and still stores the event', async () => {
    await stores.metadata.setGroupingRules(projectId, { fingerprintRules: 'not a rule', stackTraceRules: 'function:* -group' });
    await events([record('5'.repeat(32), 'Other', 'connect'), record('6'.repeat(32), 'Other', 'query')]);
    // The stack-trace rule still applies: without their frames, both group by their type alone.
    expect(await issueOf('5'.repeat(32))).toBeDefined();
    expect(await issueOf('5'.repeat(32))).toBe(await issueOf('6'.repeat(32)));
  });
});
