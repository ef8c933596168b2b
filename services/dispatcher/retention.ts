// The dispatcher's retention job: once at start and then hourly, events and logs older than
// ERRATA_EVENT_RETENTION_DAYS are deleted, and with them the record of which event ids were
// counted. Issues stay, with their counts. Uploaded source files and maps that symbolicated no
// event (or, never used, were uploaded) before the same cutoff go too; maps in use are kept.
// The record of a bundle's assembly goes once none of its files is indexed (failed ones, ones
// whose process died, ones whose files were replaced or pruned), since it last changed before
// the cutoff: before, failed ones stayed for good. Events stored for an issue after it was
// deleted (a batch counted them just before) are deleted once the issue has been gone for
// LATE_EVENTS_MS, by when such a batch has stored them.
// Alert deliveries finished before the cutoff go with their attempts, and the record of agents'
// tool calls (the Agent activity page) made before it. One kind that fails to prune does not
// keep the others.
import { repeatEvery } from '../runtime/repeat.ts';
import type { AlertStore } from '../core/ports/alert-store.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { UserStore } from '../core/ports/user-store.ts';
import { forgetExpired } from '../core/people/sessions.ts';
import type { Logger } from '../runtime/logger.ts';

export interface RetentionDeps {
  metadata: MetadataStore;
  events: EventStore;
  logs: LogStore;
  /** Where uploaded source maps live; without it, maps are not pruned here. */
  blobs?: BlobStore;
  /** The alert outbox; without it, deliveries are not pruned here. */
  alerts?: AlertStore;
  /** People's sessions and codes; without it, expired ones are not deleted here. */
  users?: UserStore;
  logger: Logger;
  retentionDays: number;
  now?: () => number;
  intervalMs?: number;
}

export async function pruneExpired(deps: RetentionDeps): Promise<{
  events: number;
  logs: number;
  eventIds: number;
  lateEvents: number;
  sourceMapFiles: number;
  bundleAssemblies: number;
  alertDeliveries: number;
  agentCalls: number;
  sessions: number;
}> {
  const now = (deps.now ?? Date.now)();
  const cutoff = now / 1000 - deps.retentionDays * 86_400;
  // Each kind is pruned even when one before it failed (a payload file that cannot be removed
  // must not keep the logs forever); the failures are thrown together at the end, so the pass
  // does not count as a success.
  const failures: Error[] = [];
  const prune = async (step: () => Promise<number>): Promise<number> => {
    try {
      return await step();
    } catch (error) {
      failures.push(error as Error);
      // A step that failed after part of its work (EventStore.deleteEventsBefore) says how much.
      const { pruned } = error as { pruned?: unknown };
      return typeof pruned === 'number' ? pruned : 0;
    }
  };
  const pruned = {
    events: await prune(() => deps.events.deleteEventsBefore(cutoff)),
    logs: await prune(() => deps.logs.deleteLogsBefore(cutoff)),
    eventIds: await prune(() => deps.metadata.forgetProcessedEventsBefore(cutoff)),
    lateEvents: await prune(() => deleteLateEvents(deps.metadata, deps.events, new Date(now - LATE_EVENTS_MS))),
    sourceMapFiles: deps.blobs ? await prune(() => pruneSourceMaps(deps.metadata, deps.blobs!, new Date(cutoff * 1000))) : 0,
    bundleAssemblies: await prune(() => deps.metadata.forgetAssembliesBefore(new Date(cutoff * 1000))),
    alertDeliveries: deps.alerts ? await prune(() => deps.alerts!.deleteFinishedDeliveriesBefore(new Date(cutoff * 1000))) : 0,
    agentCalls: await prune(() => deps.metadata.deleteAgentCallsBefore(new Date(cutoff * 1000))),
    // Not by retention: a session or a code is gone once it has expired.
    sessions: deps.users ? await prune(() => forgetExpired(deps.users!, new Date(now))) : 0,
  };
  if (Object.values(pruned).some((n) => n > 0))
    deps.logger.info({ ...pruned, retentionDays: deps.retentionDays }, 'retention pruned');
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) {
    throw new AggregateError(
      failures,
      `retention: ${failures.length} steps failed: ${failures.map((e) => e.message).join('; ')}`,
    );
  }
  return pruned;
}

/**
 * How long after an issue's delete its late events are deleted: a batch stores the events it
 * counted within seconds, or fails and counts them again, in a new issue.
 */
export const LATE_EVENTS_MS = 10 * 60_000;

/**
 * The events of issues deleted before `before`, deleted again: any a batch stored after the
 * delete. Asked first which have any (almost none do): a delete is a mutation of the whole
 * events table in ClickHouse. Then the issues are forgotten as deleted. Returns how many issues
 * had late events.
 */
async function deleteLateEvents(metadata: MetadataStore, events: EventStore, before: Date): Promise<number> {
  let late = 0;
  for (;;) {
    const deleted = await metadata.listDeletedIssues(before, 1000);
    if (deleted.length === 0) return late;
    for (const [projectId, ids] of byProject(deleted, (issue) => issue.issueId)) {
      const withEvents = await events.issuesWithEvents(projectId, ids);
      if (withEvents.length > 0) await events.deleteEventsForIssues(projectId, withEvents);
      late += withEvents.length;
    }
    await metadata.forgetDeletedIssues(deleted);
  }
}

/** Files first, then their index entries: a failure in between leaves an entry the symbolicator treats as absent. */
async function pruneSourceMaps(metadata: MetadataStore, blobs: BlobStore, cutoff: Date): Promise<number> {
  let pruned = 0;
  for (;;) {
    const stale = await metadata.listSourceMapArtifactsUnusedSince(cutoff, 500);
    if (stale.length === 0) return pruned;
    await blobs.deleteMany(stale.map((a) => a.blobKey));
    await metadata.deleteSourceMapArtifacts(stale);
    for (const [projectId, checksums] of byProject(stale, (a) => a.bundleChecksum)) {
      await metadata.forgetAssemblies(projectId, [...new Set(checksums)]);
    }
    pruned += stale.length;
  }
}

/** Each project's values of `rows`, in the order first seen. */
function byProject<R extends { projectId: number }, V>(rows: R[], value: (row: R) => V): Map<number, V[]> {
  const grouped = new Map<number, V[]>();
  for (const row of rows) {
    const values = grouped.get(row.projectId);
    if (values) values.push(value(row));
    else grouped.set(row.projectId, [value(row)]);
  }
  return grouped;
}

/** `progress` hears of each pass that finished (errata_retention_last_success_timestamp_seconds). */
export function startRetentionJob(deps: RetentionDeps, progress: { succeeded(): void }): { stop(): Promise<void> } {
  const job = { name: 'retention pruning', intervalMs: deps.intervalMs ?? 3_600_000, logger: deps.logger };
  return repeatEvery(job, async () => {
    await pruneExpired(deps);
    progress.succeeded();
  });
}
