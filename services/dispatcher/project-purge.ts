// The purge of deleted projects: every minute, each project deleted more than LATE_EVENTS_MS ago
// loses what outlived its row (see TenancyStore.deleteProject): its events, its logs, its files
// in the blob store (`projects/<id>/...`), then its counted event ids and the record of the
// delete. Waiting first lets a batch that counted events just before the delete store them, so
// they go too; a batch after the delete finds no project and drops its events (project_missing).
// A project whose purge fails stays recorded, and is purged again at the next pass (each step
// may be repeated); the projects after it are still purged.
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { DeletedProject, TenancyStore } from '../core/ports/tenancy-store.ts';
import type { Logger } from '../runtime/logger.ts';
import { repeatEvery } from '../runtime/repeat.ts';
import { LATE_EVENTS_MS } from './retention.ts';

interface ProjectPurgeDeps {
  metadata: Pick<TenancyStore, 'listDeletedProjects' | 'forgetDeletedProject'>;
  events: EventStore;
  logs: LogStore;
  /** Where uploaded source maps live; without it there are no files to delete. */
  blobs?: BlobStore | undefined;
  logger: Logger;
  now?: () => number;
  intervalMs?: number;
}

/** Purges the projects deleted long enough ago; returns those purged. */
export async function purgeDeletedProjects(deps: ProjectPurgeDeps): Promise<DeletedProject[]> {
  const before = new Date((deps.now ?? Date.now)() - LATE_EVENTS_MS);
  const purged: DeletedProject[] = [];
  const failures: Error[] = [];
  for (const project of await deps.metadata.listDeletedProjects(before, 100)) {
    try {
      await deps.events.deleteEventsOfProject(project.projectId);
      await deps.logs.deleteLogsOfProject(project.projectId);
      if (deps.blobs) await deleteFiles(deps.blobs, `projects/${project.projectId}/`);
      await deps.metadata.forgetDeletedProject(project.projectId);
      deps.logger.info({ projectId: project.projectId, slug: project.slug }, 'deleted project purged');
      purged.push(project);
    } catch (error) {
      failures.push(error as Error);
    }
  }
  if (failures.length > 0)
    throw failures.length === 1 ? failures[0] : new AggregateError(failures, 'purging deleted projects failed');
  return purged;
}

/** Every blob under the prefix, a listing's page at a time (each page lists what is left). */
async function deleteFiles(blobs: BlobStore, prefix: string): Promise<void> {
  for (;;) {
    const page = await blobs.list(prefix);
    if (page.items.length === 0) return;
    await blobs.deleteMany(page.items.map((blob) => blob.key));
  }
}

export function startProjectPurgeJob(deps: ProjectPurgeDeps): { stop(): Promise<void> } {
  const job = { name: 'deleted project purge', intervalMs: deps.intervalMs ?? 60_000, logger: deps.logger };
  return repeatEvery(job, async () => {
    await purgeDeletedProjects(deps);
  });
}
