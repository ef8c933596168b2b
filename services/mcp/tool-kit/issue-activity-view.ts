// An issue's resolution marker and activity log as tools show them. What Errata recorded itself
// (when, which token, what kind of change, snooze times, event ids) is in the trusted part; the
// commit, release and note a token passed to update_issue are text any triage token can write,
// so they go apart, under agentWrittenData (services/mcp/untrusted-data.ts).
import { z } from 'zod';
import type { ResolutionMarker } from '../../core/issues/lifecycle.ts';
import type { IssueActivity } from '../../core/ports/metadata-store.ts';
import { isoSeconds } from './iso-time.ts';

export const resolutionSchema = z
  .object({
    resolvedAt: z.string(),
    by: z.string(),
    // A token may be named like an email: the kind says whether a person or a token resolved it.
    byKind: z.enum(['person', 'agent']).optional().describe('person (the dashboard) or agent (a token); absent on old markers'),
  })
  .nullable();

/** What a person or token wrote with a resolve: in the marker, and in the activity entry of the resolve. */
export const writtenSchema = z.object({
  commit: z.string().optional(),
  release: z.string().optional(),
  note: z.string().optional(),
});

export const activitySchema = z.object({
  at: z.string(),
  actor: z.string().describe('the token name, or "errata" for changes events or the clock made'),
  kind: z.string(),
  details: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('what Errata recorded, when it recorded more; text a person or token wrote is in agentWrittenData.activity'),
});

export function resolutionView(marker: ResolutionMarker | null): z.infer<typeof resolutionSchema> {
  return marker && { resolvedAt: marker.resolvedAt, by: marker.by, ...(marker.byKind ? { byKind: marker.byKind } : {}) };
}

export function resolutionWritten(marker: ResolutionMarker | null): z.infer<typeof writtenSchema> | null {
  if (!marker) return null;
  const { resolvedAt: _at, by: _by, byKind: _kind, ...text } = marker;
  return text;
}

/** Details Errata itself records (core/issues/triage.ts, the dispatcher, the snooze clock); any other key is a token's text. */
const RECORDED_DETAILS = new Set(['eventId', 'snoozeMinutes', 'snoozeUntil', 'actorKind']);

export function activityView(entry: IssueActivity): z.infer<typeof activitySchema> {
  const details = Object.fromEntries(Object.entries(entry.details).filter(([key]) => RECORDED_DETAILS.has(key)));
  return {
    at: isoSeconds(entry.at),
    actor: entry.actor,
    kind: entry.kind,
    ...(Object.keys(details).length > 0 && { details }),
  };
}

/** The text of one activity entry, at the same index as the entry in `activity` ({} when there is none). */
export function activityWritten(entry: IssueActivity): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry.details).filter(([key]) => !RECORDED_DETAILS.has(key)));
}
