// The snooze expiry job and triage over the real embedded stores, on an injected clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../test/fixtures/new-event.ts';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { triageIssues } from '../core/issues/triage.ts';
import type { Issue } from '../core/ports/metadata-store.ts';
import { createLogger } from '../runtime/logger.ts';
import { startSnoozeExpiryJob } from './snooze-expiry.ts';

let stores: EmbeddedStores;
let issue: Issue;
const T0 = Date.UTC(2030, 0, 1);

beforeAll(async () => {
  stores = await openEmbeddedStores();
  const org = await stores.metadata.ensureOrganization('o', 'o');
  const { project } = await stores.metadata.createProject(
    { organizationId: org.id, slug: 'web', name: 'web' },
    { publicKey: 'k'.repeat(32), label: 'Default' },
  );
  const [recorded] = await stores.metadata.recordOccurrences([
    {
      projectId: project.id,
      eventId: 'e'.repeat(32),
      hashes: ['h1'],
      title: 'Error: x',
      culprit: '',
      level: 'error',
      type: 'error',
      metadata: {},
      timestamp: T0 / 1000,
      environment: null,
      release: null,
      userKey: null,
      tags: {},
    },
  ]);
  await stores.events.insertEvents([
    newEvent(stores.events, {
      projectId: project.id,
      eventId: 'e'.repeat(32),
      issueId: recorded!.issueId,
      timestamp: T0 / 1000,
      title: 'Error: x',
    }),
  ]);
  issue = (await stores.metadata.getIssue(recorded!.issueId))!;
});
afterAll(() => stores.close());

describe('snooze expiry job', () => {
  it('wakes a snoozed issue once the injected clock passes its end, not before', async () => {
    await triageIssues(
      stores,
      issue.projectId,
      [issue],
      { action: 'snooze', snoozeMinutes: 10 },
      { kind: 'agent', name: 'tok' },
      new Date(T0),
    );
    let now = T0 + 9 * 60_000;
    const job = startSnoozeExpiryJob({
      metadata: stores.metadata,
      logger: createLogger('silent'),
      now: () => now,
      intervalMs: 20,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await stores.metadata.getIssue(issue.id))?.status).toBe('snoozed');
      now = T0 + 10 * 60_000;
      await expect.poll(async () => (await stores.metadata.getIssue(issue.id))?.status, { timeout: 5_000 }).toBe('unresolved');
      const [latest] = await stores.metadata.listIssueActivity(issue.id, 1);
      expect(latest).toMatchObject({ kind: 'snooze_expired', actor: 'errata' });
    } finally {
      await job.stop();
    }
  });

  it('triage delete removes the issue and its stored events', async () => {
    expect(await stores.events.countEventsForIssue(issue.projectId, issue.id)).toBe(1);
    const result = await triageIssues(
      stores,
      issue.projectId,
      [issue],
      { action: 'delete' },
      { kind: 'agent', name: 'tok' },
      new Date(T0),
    );
    expect(result).toEqual({ matched: 1, changed: 1, changedIds: [issue.id] });
    expect(await stores.metadata.getIssue(issue.id)).toBeUndefined();
    expect(await stores.events.countEventsForIssue(issue.projectId, issue.id)).toBe(0);
  });

  it('triage refuses issues of another project', async () => {
    await expect(
      triageIssues(stores, issue.projectId + 1, [issue], { action: 'ignore' }, { kind: 'agent', name: 'tok' }, new Date(T0)),
    ).rejects.toThrow(/another project/);
  });
});
