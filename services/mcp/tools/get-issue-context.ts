// get_issue_context: everything needed to debug one issue in one call: the latest event's
// (symbolicated) stack trace and breadcrumbs, logs of the same trace, the release, 14 days of
// daily counts, affected users, similar issues, the resolution marker and activity, and the raw
// event. Bounded by default; captured text only under untrustedData, text tokens wrote (resolution
// notes, commits, releases) only under agentWrittenData.
import { z } from 'zod';
import { eventMessage } from '../../core/event/event.ts';
import { findSimilarIssues } from '../../core/issues/similar.ts';
import { dailySeries } from '../../core/issues/event-series.ts';
import type { StoredEvent } from '../../core/ports/event-store.ts';
import { bounded, DEFAULT_BOUNDS, lastWithNote, VERBOSE_BOUNDS } from '../bounded.ts';
import {
  activitySchema,
  activityView,
  activityWritten,
  resolutionSchema,
  resolutionView,
  resolutionWritten,
  writtenSchema,
} from '../tool-kit/issue-activity-view.ts';
import { issueFacts, issueFactsSchema, shortIdInput } from '../tool-kit/issue-views.ts';
import { issueByShortId } from '../tool-kit/scope.ts';
import { defineTool } from '../tool-kit/tool.ts';

const DAYS = 14;

export const getIssueContext = defineTool({
  name: 'get_issue_context',
  title: 'Get issue context',
  description:
    'The debugging bundle for one issue: stack trace of the latest event (original source when source maps were uploaded), ' +
    'breadcrumbs, logs with the same trace id, release, daily event counts for 14 days, affected users with samples, ' +
    'similar issues, resolution marker, activity and the raw event. Long text and lists are cut with a marker saying how much; ' +
    'pass verbose: true for larger bounds.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    shortId: shortIdInput,
    verbose: z.boolean().default(false).describe('larger bounds on text and lists'),
  },
  outputSchema: {
    issue: issueFactsSchema,
    resolution: resolutionSchema,
    activity: z.array(activitySchema),
    latestEvent: z
      .object({
        eventId: z.string(),
        timestamp: z.string(),
        receivedAt: z.string(),
        level: z.string(),
        platform: z.string(),
        traceId: z.string().nullable(),
      })
      .nullable(),
    dailyCounts: z.array(z.object({ day: z.string(), count: z.number().int() })).describe('UTC days, oldest first'),
    affectedUsers: z.object({ count: z.number().int(), samples: z.number().int() }),
    correlatedLogs: z.number().int().describe('how many logs of the trace are under untrustedData.logs'),
    similarIssues: z.array(
      z.object({
        shortId: z.string(),
        reason: z.enum(['same_exception_and_frame', 'similar_title']),
        status: z.string(),
        count: z.number(),
      }),
    ),
    untrustedData: z.object({
      title: z.string(),
      culprit: z.string(),
      message: z.string().nullable(),
      environment: z.string().nullable(),
      release: z.object({ version: z.string(), firstSeen: z.string(), lastSeen: z.string() }).nullable(),
      regressionRelease: z.string().nullable(),
      exceptions: z.array(z.unknown()).describe('the chain, outermost last; frames oldest first, as the SDKs send them'),
      breadcrumbs: z.array(z.unknown()),
      logs: z.array(z.unknown()),
      sampleUsers: z.array(z.unknown()),
      tags: z.record(z.string(), z.unknown()),
      similarIssueTitles: z.array(z.object({ shortId: z.string(), title: z.string() })),
      rawEvent: z.unknown(),
    }),
    agentWrittenData: z.object({
      resolution: writtenSchema.nullable().describe("the marker's commit, release and note"),
      activity: z.array(z.record(z.string(), z.unknown())).describe('the text tokens wrote with activity[i], at index i'),
    }),
  },
  async run(input, context) {
    const bounds = input.verbose ? VERBOSE_BOUNDS : DEFAULT_BOUNDS;
    const { project, issue } = await issueByShortId(context, input.shortId);
    const now = context.now();
    const latest = await context.events.latestEventForIssue(project.id, issue.id);
    const payload = latest?.payload;
    const release = latest?.release ? await context.metadata.findRelease(project.id, latest.release) : undefined;
    const logs = latest?.traceId
      ? (await context.logs.searchLogs({ projectId: project.id, traceId: latest.traceId, limit: input.verbose ? 100 : 20 })).items
      : [];
    const users = await context.events.latestEventPerUser(project.id, issue.id, 5);
    const similar = await findSimilarIssues(context.metadata, issue);
    const activity = await context.metadata.listIssueActivity(issue.id, input.verbose ? 200 : 20);
    const written = { resolution: resolutionWritten(issue.resolution), activity: activity.map(activityWritten) };
    const untrusted = {
      title: issue.title,
      culprit: issue.culprit,
      message: (payload && eventMessage(payload)) ?? null,
      environment: latest?.environment ?? null,
      release: release
        ? { version: release.version, firstSeen: release.firstSeen.toISOString(), lastSeen: release.lastSeen.toISOString() }
        : null,
      regressionRelease: issue.regressionRelease,
      exceptions: (payload?.exception?.values ?? []).map((value) => ({
        type: value.type,
        value: value.value,
        module: value.module,
        mechanism: value.mechanism,
        frames: lastWithNote(value.stacktrace?.frames ?? [], bounds.maxList, 'frames'),
        ...(value.raw_stacktrace ? { minifiedFrames: lastWithNote(value.raw_stacktrace.frames, bounds.maxList, 'frames') } : {}),
      })),
      breadcrumbs: lastWithNote(payload?.breadcrumbs?.values ?? [], input.verbose ? 200 : 30, 'breadcrumbs'),
      logs: logs.map((log) => ({
        timestamp: new Date(log.timestamp * 1000).toISOString(),
        level: log.level,
        body: log.body,
        attributes: log.attributes,
      })),
      sampleUsers: users.map((event) => event.payload.user ?? { key: event.userKey }),
      tags: payload?.tags ?? {},
      similarIssueTitles: similar.map((s) => ({ shortId: s.issue.shortId, title: s.issue.title })),
      rawEvent: payload ?? null,
    };
    return {
      summary:
        `${issue.shortId}: ${issue.status}, ${issue.count} events, ${issue.userCount} users, last seen ${issue.lastSeen.toISOString()}` +
        `${latest ? '' : '; no stored event (retention may have pruned them)'}.`,
      result: {
        issue: issueFacts(issue),
        resolution: resolutionView(issue.resolution),
        activity: activity.map(activityView),
        latestEvent: latest ? eventFacts(latest) : null,
        dailyCounts: await dailySeries(context.events, project.id, issue.id, now, DAYS),
        affectedUsers: { count: issue.userCount, samples: users.length },
        correlatedLogs: logs.length,
        similarIssues: similar.map((s) => ({
          shortId: s.issue.shortId,
          reason: s.reason,
          status: s.issue.status,
          count: s.issue.count,
        })),
        untrustedData: bounded(untrusted, bounds) as typeof untrusted,
        agentWrittenData: bounded(written, bounds) as typeof written,
      },
    };
  },
});

function eventFacts(event: StoredEvent) {
  return {
    eventId: event.eventId,
    timestamp: new Date(event.timestamp * 1000).toISOString(),
    receivedAt: new Date(event.receivedAt * 1000).toISOString(),
    level: event.level,
    platform: event.platform,
    traceId: event.traceId,
  };
}
