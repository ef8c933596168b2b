// An issue's resolution marker and activity log as tools show them.
import { z } from 'zod';
import type { ResolutionMarker } from '../../core/issues/lifecycle.ts';
import type { IssueActivity } from '../../core/ports/metadata-store.ts';

export const resolutionSchema = z
  .object({
    resolvedAt: z.string(),
    by: z.string(),
    commit: z.string().optional(),
    release: z.string().optional(),
    note: z.string().optional(),
  })
  .nullable();

export const activitySchema = z.object({
  at: z.string(),
  actor: z.string().describe('the token name, or "errata" for changes events or the clock made'),
  kind: z.string(),
  details: z.record(z.string(), z.unknown()),
});

export function resolutionView(marker: ResolutionMarker | null): z.infer<typeof resolutionSchema> {
  return marker && { ...marker };
}

export function activityView(entry: IssueActivity): z.infer<typeof activitySchema> {
  return { at: entry.at.toISOString(), actor: entry.actor, kind: entry.kind, details: entry.details };
}
