// The default event of an issue page and get_issue_context, over the real embedded stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../../test/fixtures/new-event.ts';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { occurrenceMaker, orgWithProject } from '../../adapters/contracts/metadata-fixtures.ts';
import type { EventStore } from '../ports/event-store.ts';
import { MAX_ISSUE_ENVIRONMENTS } from '../ports/issue-store.ts';
import type { Issue } from '../ports/metadata-store.ts';
import { latestIssueEvent } from './latest-event.ts';

let stores: EmbeddedStores;
let issue: Issue;
const T0 = Date.UTC(2030, 0, 1) / 1000;

beforeAll(async () => {
  stores = await openEmbeddedStores();
  const { project } = await orgWithProject(stores.metadata);
  const occurrence = occurrenceMaker();
  const events = [
    { eventId: 'a'.repeat(32), environment: 'production', timestamp: T0 },
    { eventId: 'b'.repeat(32), environment: 'staging', timestamp: T0 + 1 },
    { eventId: 'c'.repeat(32), environment: 'production', timestamp: T0 + 2 },
  ];
  const recorded = await stores.metadata.recordOccurrences(events.map((e) => occurrence(project, e)));
  const issueId = recorded[0]!.issueId;
  await stores.events.insertEvents(events.map((e) => newEvent(stores.events, { projectId: project.id, issueId, ...e })));
  issue = (await stores.metadata.getIssue(issueId))!;
});
afterAll(() => stores.close());

/** The real event store, counting the reads that walk an issue's events. */
function countingEvents(): { events: Pick<EventStore, 'latestEventForIssue'>; reads: () => number } {
  let reads = 0;
  return {
    events: {
      latestEventForIssue: (projectId, issueId, environment) => {
        reads += 1;
        return stores.events.latestEventForIssue(projectId, issueId, environment);
      },
    },
    reads: () => reads,
  };
}

describe('latestIssueEvent', () => {
  it('finds the newest event, and the newest in an environment the issue was seen in', async () => {
    expect(issue.environments.sort()).toEqual(['production', 'staging']);
    expect((await latestIssueEvent(stores.events, issue))?.eventId).toBe('c'.repeat(32));
    expect((await latestIssueEvent(stores.events, issue, 'staging'))?.eventId).toBe('b'.repeat(32));
    expect((await latestIssueEvent(stores.events, issue, 'production'))?.eventId).toBe('c'.repeat(32));
  });

  it('answers an environment none of the issue’s events came with without reading its events', async () => {
    const counting = countingEvents();
    expect(await latestIssueEvent(counting.events, issue, 'development')).toBeUndefined();
    expect(counting.reads()).toBe(0);
    expect(await latestIssueEvent(counting.events, issue, 'staging')).toBeDefined();
    expect(counting.reads()).toBe(1);
  });

  it('reads the events for an environment past an issue’s full list of them', async () => {
    // The list stops at MAX_ISSUE_ENVIRONMENTS: before, an event of the 101st was answered as none.
    const full = { ...issue, environments: Array.from({ length: MAX_ISSUE_ENVIRONMENTS }, (_, i) => `env-${i}`) };
    expect((await latestIssueEvent(stores.events, full, 'staging'))?.eventId).toBe('b'.repeat(32));
  });
});
