// check_resolution: did a resolve hold? Compares the events since the resolution marker with
// it, by the same rule the dispatcher regresses issues with (core/issues/lifecycle.ts).
import { z } from 'zod';
import { resolutionReport } from '../../core/issues/resolution-report.ts';
import { resolutionSchema, resolutionView, resolutionWritten, writtenSchema } from '../tool-kit/issue-activity-view.ts';
import { shortIdInput } from '../tool-kit/issue-views.ts';
import { issueByShortId } from '../tool-kit/scope.ts';
import { defineTool } from '../tool-kit/tool.ts';

export const checkResolution = defineTool({
  name: 'check_resolution',
  title: 'Check resolution',
  description:
    'Whether the last resolve of an issue held: held (still resolved), regressed (an event newer than the resolution, ' +
    "and not from a release first seen before the marker's release, brought it back) or no_resolution; with the marker " +
    'and the events seen since it.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { shortId: shortIdInput },
  outputSchema: {
    shortId: z.string(),
    status: z.enum(['held', 'regressed', 'no_resolution']),
    issueStatus: z.string(),
    marker: resolutionSchema,
    eventsSince: z
      .object({ count: z.number().int(), firstSeen: z.string().nullable(), lastSeen: z.string().nullable() })
      .nullable()
      .describe('events newer than the marker; null without a marker'),
    regressedAt: z.string().nullable(),
    untrustedData: z.object({ releasesSince: z.array(z.string()), regressionRelease: z.string().nullable() }),
    agentWrittenData: z.object({ marker: writtenSchema.nullable().describe("the marker's commit, release and note") }),
  },
  async run(input, context) {
    const { issue } = await issueByShortId(context, input.shortId);
    const { status, since: stats } = await resolutionReport(context.events, issue);
    const marker = issue.resolution;
    const iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());
    const since = stats ? `; ${stats.count} event${stats.count === 1 ? '' : 's'} since the resolve` : '';
    return {
      summary: `${issue.shortId}: ${status.replace('_', ' ')}${since}.`,
      result: {
        shortId: issue.shortId,
        status,
        issueStatus: issue.status,
        marker: resolutionView(marker),
        eventsSince: stats ? { count: stats.count, firstSeen: iso(stats.firstSeen), lastSeen: iso(stats.lastSeen) } : null,
        regressedAt: status === 'regressed' ? (issue.regressedAt?.toISOString() ?? null) : null,
        untrustedData: {
          releasesSince: stats?.releases ?? [],
          regressionRelease: status === 'regressed' ? issue.regressionRelease : null,
        },
        agentWrittenData: { marker: resolutionWritten(marker) },
      },
    };
  },
});
