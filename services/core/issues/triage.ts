// Triage: applying one action to issues of one project, through the ports. The MCP tools and the
// dashboard call this (bulk-triage.ts for every issue matching a filter); the lifecycle rules
// themselves are in lifecycle.ts.
import type { EventStore } from '../ports/event-store.ts';
import type { Issue, MetadataStore } from '../ports/metadata-store.ts';
import { stateAfterAction, type ActionRequest, type IssueAction, type TriageActor } from './lifecycle.ts';

export interface TriagePorts {
  metadata: MetadataStore;
  events: EventStore;
}

export interface TriageRequest extends Omit<ActionRequest, 'action'> {
  action: IssueAction;
}

export interface TriageResult {
  /** Issues the action was applied to. */
  matched: number;
  /** Of those, how many changed status (or were deleted). */
  changed: number;
  /** The ids of those that changed. */
  changedIds: number[];
}

/**
 * Applies one action to issues of one project, and names the issues that changed (a caller like
 * bulk_update_issues echoes them); a delete names those it removed, not those another call
 * removed first. The issues must all belong to `projectId`; callers have checked the token may
 * act on them.
 */
export async function triageIssues(
  ports: TriagePorts,
  projectId: number,
  issues: Array<Pick<Issue, 'id' | 'projectId'>>,
  request: TriageRequest,
  actor: TriageActor,
  now: Date,
): Promise<TriageResult> {
  if (issues.some((issue) => issue.projectId !== projectId)) throw new Error('triageIssues: issues of another project');
  const ids = issues.map((issue) => issue.id);
  if (request.action === 'delete') {
    // Events first: if this fails, the issue is still there and the call can be repeated. An
    // event still on its way into the store when this runs (counted in the issue just before)
    // is deleted by retention's next pass once the issue has been gone for ten minutes.
    await ports.events.deleteEventsForIssues(projectId, ids);
    const deleted = await ports.metadata.deleteIssues(projectId, ids);
    return { matched: ids.length, changed: deleted.length, changedIds: deleted };
  }
  const state = stateAfterAction({ ...request, action: request.action }, actor, now);
  // actorKind is recorded by Errata, so a token named like a person's email cannot pass as one.
  const details = {
    actorKind: actor.kind,
    ...(request.action === 'snooze'
      ? { snoozeMinutes: request.snoozeMinutes, snoozeUntil: state.snoozeUntil?.toISOString() }
      : {}),
    ...(request.action === 'resolve' && request.commit ? { commit: request.commit } : {}),
    ...(request.action === 'resolve' && request.release ? { release: request.release } : {}),
    ...(request.note ? { note: request.note } : {}),
  };
  const changedIds = await ports.metadata.changeIssues(projectId, ids, {
    state,
    at: now,
    actor: actor.name,
    kind: request.action,
    details,
  });
  return { matched: ids.length, changed: changedIds.length, changedIds };
}
