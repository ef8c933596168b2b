// What the contracts of the MetadataStore's slices share to set up their tests: each test works
// in an organization of its own (made through a TenancyStore), so suites can share one database
// without cleaning up; occurrences with distinct event ids; triage changes at chosen times.
import { randomUUID } from 'node:crypto';
import { stateAfterAction, type ActionRequest } from '../../core/issues/lifecycle.ts';
import type { Occurrence, OccurrenceResult } from '../../core/issues/occurrence.ts';
import type { IssueChange, IssueStore } from '../../core/ports/issue-store.ts';
import type { Organization, Project, TenancyStore } from '../../core/ports/tenancy-store.ts';

export const unique = () => randomUUID().replace(/-/g, '').slice(0, 12);

export async function orgWithProject(tenancy: TenancyStore, slug = 'web'): Promise<{ org: Organization; project: Project }> {
  const org = await tenancy.ensureOrganization(`org-${unique()}`, 'Org');
  const { project } = await tenancy.createProject(
    { organizationId: org.id, slug, name: 'Web' },
    { publicKey: unique() + unique(), label: 'Default' },
  );
  return { org, project };
}

/** Makes occurrences of a suite: each has an event id of its own and a timestamp after the last one's. */
export function occurrenceMaker(): (project: Project, overrides?: Partial<Occurrence>) => Occurrence {
  let eventCounter = 0;
  return function occurrence(project: Project, overrides: Partial<Occurrence> = {}): Occurrence {
    eventCounter += 1;
    return {
      projectId: project.id,
      eventId: `${unique()}${String(eventCounter).padStart(20, '0')}`,
      hashes: ['hash-a'],
      title: 'TypeError: x is undefined',
      culprit: 'handler(app.js)',
      level: 'error',
      type: 'error',
      metadata: { type: 'TypeError', value: 'x is undefined' },
      timestamp: 1_700_000_000 + eventCounter,
      environment: null,
      release: null,
      userKey: null,
      tags: {},
      ...overrides,
    };
  };
}

// Event times in seconds for the issue lifecycle tests; every test sets its own, well clear of
// the occurrences' default timestamps.
export const T = 1_750_000_000;
export const at = (seconds: number) => new Date(seconds * 1000);
export function change(request: ActionRequest, now: Date, details: Record<string, unknown> = {}): IssueChange {
  return {
    state: stateAfterAction(request, { kind: 'agent', name: 'alice' }, now),
    at: now,
    actor: 'alice',
    kind: request.action,
    details,
  };
}

/** Records one occurrence on its own. */
export async function recordOne(issues: IssueStore, occurrence: Occurrence): Promise<OccurrenceResult> {
  const [result] = await issues.recordOccurrences([occurrence]);
  return result!;
}
