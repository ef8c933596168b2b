// check_resolution: did a resolve hold? Compares the events since the resolution marker with
// it, by the same rule the dispatcher regresses issues with (core/issues/lifecycle.ts), and says
// why (core/issues/resolution-report.ts, which the issue page shows too).
import { z } from 'zod';
import { resolutionReport } from '../../core/issues/resolution-report.ts';
import { STATS_RELEASES } from '../../core/ports/event-store.ts';
import { resolutionSchema, resolutionView, resolutionWritten, writtenSchema } from '../tool-kit/issue-activity-view.ts';
import { shortIdInput } from '../tool-kit/issue-views.ts';
import { issueByShortId } from '../tool-kit/scope.ts';
import { defineTool } from '../tool-kit/tool.ts';
import { withoutEmpty } from '../tool-kit/without-empty.ts';

export const checkResolution = defineTool({
  name: 'check_resolution',
  title: 'Check resolution',
  description:
    'Whether the last resolve of an issue held: held (still resolved; events since it, if any, came from releases first ' +
    "seen before the marker's release), awaiting_release (the marker names a release this project has never seen, so no " +
    "event of another release can regress it yet: check the name against untrustedData.recentReleases, the SDK's exact " +
    'release names), regressed (an event newer than the resolution brought it back: regressingEvent names its event and ' +
    'trace id) or no_resolution; with the marker, the events seen since it and an explanation.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { shortId: shortIdInput },
  outputSchema: {
    shortId: z.string(),
    status: z.enum(['held', 'awaiting_release', 'regressed', 'no_resolution']),
    explanation: z.string().describe("why this status, in Errata's words"),
    issueStatus: z.string(),
    // Sections that do not apply are left out (tool-kit/without-empty.ts).
    marker: resolutionSchema.optional().describe('absent for no_resolution'),
    eventsSince: z
      .object({
        count: z.number().int().describe('events since the resolve that are still stored (retention deletes old ones)'),
        deleted: z
          .literal(true)
          .optional()
          .describe('present when events came since the resolve but none is stored any more: count is 0 for that'),
        firstSeen: z.string().optional(),
        lastSeen: z.string().optional(),
        releaseCount: z
          .number()
          .int()
          .optional()
          .describe(
            `how many releases those events came with, present when more than untrustedData.releasesSince names (${STATS_RELEASES})`,
          ),
      })
      .optional()
      .describe('events newer than the marker (times to the millisecond, as the marker); absent without a marker'),
    markerRelease: z
      .object({ seen: z.boolean(), firstSeen: z.string().optional() })
      .optional()
      .describe("whether this project has seen the marker's release, and when first; absent when the marker names none"),
    regressedAt: z.string().optional().describe('regressed: when'),
    regressingEvent: z
      .object({ eventId: z.string(), traceId: z.string().optional() })
      .optional()
      .describe('regressed: the event that brought the issue back (search_logs takes its traceId)'),
    untrustedData: z
      .object({
        releasesSince: z
          .array(z.string())
          .optional()
          .describe(`the releases of the events since the marker, sorted, the first ${STATS_RELEASES}`),
        regressionRelease: z.string().optional(),
        recentReleases: z
          .array(z.string())
          .optional()
          .describe(
            'awaiting_release: the 5 newest releases this project has seen, newest first, then up to 5 of the same version',
          ),
      })
      .optional(),
    agentWrittenData: z
      .object({ marker: writtenSchema.describe("the marker's commit, release and note") })
      .optional()
      .describe('present when the marker carries text a person or token wrote'),
  },
  async run(input, context) {
    const { issue } = await issueByShortId(context, input.shortId);
    const report = await resolutionReport(context, issue, context.now());
    const { status, since: stats, regressingEvent } = report;
    const marker = issue.resolution;
    const iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());
    const since = !stats
      ? ''
      : report.sinceDeleted
        ? '; events came since the resolve, no longer stored'
        : `; ${stats.count} event${stats.count === 1 ? '' : 's'} since the resolve`;
    // Its ids are in the facts on the text's next line: pointed at, not repeated.
    const event = regressingEvent ? ` regressingEvent has its event${regressingEvent.traceId ? ' and trace' : ''} id.` : '';
    const releases = report.recentReleases.length > 0 ? ' Recent releases: untrustedData.recentReleases.' : '';
    const untrusted = withoutEmpty({
      releasesSince: stats?.releases ?? [],
      regressionRelease: status === 'regressed' ? issue.regressionRelease : null,
      recentReleases: report.recentReleases.map((r) => r.version),
    });
    const written = resolutionWritten(marker);
    // The status says it all unless events came and did not regress the issue: then say why.
    // (explanation, on the text's next line, says it once.)
    const why =
      status === 'awaiting_release' || (status === 'held' && ((stats?.count ?? 0) > 0 || report.sinceDeleted))
        ? ' Why: see explanation.'
        : '';
    return {
      summary: `${issue.shortId}: ${status.replace('_', ' ')}${since}.${why}${event}${releases}`,
      result: {
        shortId: issue.shortId,
        status,
        explanation: report.explanation,
        issueStatus: issue.status,
        ...withoutEmpty({
          marker: resolutionView(marker),
          eventsSince: stats && {
            count: stats.count,
            ...(report.sinceDeleted && { deleted: true as const }),
            ...withoutEmpty({ firstSeen: iso(stats.firstSeen), lastSeen: iso(stats.lastSeen) }),
            ...(stats.releaseCount > stats.releases.length && { releaseCount: stats.releaseCount }),
          },
          markerRelease: report.markerRelease && {
            seen: report.markerRelease.seen,
            ...(report.markerRelease.firstSeen && { firstSeen: report.markerRelease.firstSeen.toISOString() }),
          },
          regressedAt: status === 'regressed' ? issue.regressedAt?.toISOString() : undefined,
          regressingEvent: regressingEvent && {
            eventId: regressingEvent.eventId,
            ...(regressingEvent.traceId && { traceId: regressingEvent.traceId }),
          },
        }),
        ...(Object.keys(untrusted).length > 0 && { untrustedData: untrusted }),
        ...(written && { agentWrittenData: { marker: written } }),
      },
    };
  },
});
