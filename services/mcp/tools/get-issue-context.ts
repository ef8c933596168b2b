// get_issue_context: what is needed to debug one issue in one call, sized for an agent's context
// (about 4 KB for a typical issue): the latest event's exceptions outermost first with causes
// nested (crash frame with source lines, other in-app frames one line each, library frames
// summarized, repository-relative paths), its breadcrumbs and the logs of its trace as lines,
// the release, daily counts over 14 days (from the day first seen when younger), events per
// environment and release and the commonest tag values (counted over every event of the issue),
// affected users, similar issues, the resolution marker and activity; with environment, the
// latest event sent from there. The raw event only on request (include: ["raw"]). Captured text only
// under untrustedData, text people or tokens wrote (resolution notes, commits, releases) only under
// agentWrittenData.
import { z } from 'zod';
import { eventMessage } from '../../core/event/event.ts';
import { knownPlatform } from '../../core/event/platform.ts';
import { latestIssueEvent } from '../../core/issues/latest-event.ts';
import { findSimilarIssues } from '../../core/issues/similar.ts';
import { dailySeries } from '../../core/issues/event-series.ts';
import type { StoredEvent } from '../../core/ports/event-store.ts';
import { bounded, DEFAULT_BOUNDS, VERBOSE_BOUNDS } from '../bounded.ts';
import { escapedJsonLength } from '../untrusted-data.ts';
import { breadcrumbLines, logLine } from '../tool-kit/event-lines.ts';
import { eventStackView, exceptionsView, withoutTitleValue } from '../tool-kit/exception-view.ts';
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
import { issueByShortId, visibleProjects } from '../tool-kit/scope.ts';
import { TAG_KEYS_READ, tagSummaryView } from '../tool-kit/tag-summary-view.ts';
import { isoSeconds } from '../tool-kit/iso-time.ts';
import { defineTool } from '../tool-kit/tool.ts';
import { plural } from '../../core/plural.ts';
import { withoutEmpty } from '../tool-kit/without-empty.ts';

const DAYS = 14;
/** How far from its latest event the trace's logs are looked for. */
const TRACE_LOG_SPAN_SECONDS = 86_400;

// verbose stays a switch of its own beside include: it widens the same sections (more lines,
// longer lines), while include adds a section; an agent asks for either without the other.
const LIMITS = {
  default: {
    exceptions: { stackLines: 20, contextLines: 2, lineLength: 200, nesting: 5 },
    breadcrumbs: 10,
    logs: 10,
    lineLength: 300,
    tags: { keys: 5, values: 3 },
    activity: 20,
    bounds: DEFAULT_BOUNDS,
  },
  verbose: {
    // nesting stays below VERBOSE_BOUNDS.maxDepth's reach (each cause is one level deeper).
    exceptions: { stackLines: 200, contextLines: 10, lineLength: 2_000, nesting: 15 },
    breadcrumbs: 100,
    logs: 100,
    lineLength: 2_000,
    tags: { keys: 50, values: 10 },
    activity: 200,
    bounds: VERBOSE_BOUNDS,
  },
};

/** About what an answer may take, in escaped characters, as search_logs holds its records to. */
const ANSWER_BUDGET_CHARS = 200_000;
/**
 * A raw event over that budget, cut closer, each step until it fits: fields of 200 characters
 * and lists of 10 (objects of 40 keys) first. Nested objects keep that many keys at each level,
 * so an event of many short fields (40 x 40 x 40 of them) needs the later steps.
 */
const RAW_CUTS = [
  { maxString: 200, maxList: 10, maxDepth: 12 },
  { maxString: 100, maxList: 5, maxDepth: 8 },
  { maxString: 50, maxList: 2, maxDepth: 6 },
];

export const getIssueContext = defineTool({
  name: 'get_issue_context',
  title: 'Get issue context',
  description:
    "The debugging bundle for one issue, about 4 KB: the latest event's exceptions outermost first with causes nested, " +
    'each with its crash frame (the newest in-app frame, original source when source maps were uploaded, with source lines), ' +
    'the other in-app frames one line each and runs of library frames summarized, paths relative to the repository; ' +
    'breadcrumbs and logs with the same trace id (of every project the token sees) as lines; release; daily event counts over 14 days (from the day ' +
    'first seen when younger); events per environment and per release and the commonest tag values, over every event of the issue; affected users with samples; similar ' +
    'issues; resolution marker; activity. Long text and lists are cut with a marker saying how much. ' +
    'verbose: true widens the same sections (more stack lines, breadcrumbs, logs and tag values, longer lines); ' +
    'include: ["raw"] adds the raw event (every frame with its full path, every field the SDK sent). environment shows ' +
    'the latest event sent from that environment instead.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    shortId: shortIdInput,
    environment: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "show the latest event sent from this environment (counts, tags and users stay the issue's, over every environment)",
      ),
    verbose: z.boolean().default(false).describe('larger bounds on the same sections'),
    include: z
      .array(z.enum(['raw']))
      .default([])
      .describe('"raw": add the latest event as stored (untrustedData.rawEvent), full paths and every frame'),
  },
  outputSchema: {
    issue: issueFactsSchema,
    resolution: resolutionSchema.optional().describe('present while a resolution marker is kept: resolved, or regressed since'),
    activity: z.array(activitySchema).optional().describe('newest first; absent when nothing happened yet'),
    latestEvent: z
      .object({
        eventId: z.string(),
        timestamp: z.string().describe('ISO 8601, to the millisecond (as log and breadcrumb lines)'),
        level: z.string(),
        platform: z.string().describe('a platform Sentry knows, or other (the raw event keeps any other name the SDK sent)'),
        traceId: z.string().optional(),
      })
      .optional()
      .describe('absent when no event is stored (retention pruned them) or none came from the environment asked for'),
    dailyCounts: z
      .object({ firstDay: z.string(), counts: z.array(z.number().int()) })
      .describe(
        `events per UTC day from firstDay to today, oldest first: the last ${DAYS} days, or fewer when the issue is younger (firstDay is the day it was first seen) or retention keeps fewer`,
      ),
    eventsPerEnvironment: z
      .array(z.number().int())
      .describe('events of the issue in each of untrustedData.environments, at the same index (commonest first)'),
    eventsPerRelease: z
      .array(z.number().int())
      .describe('events of the issue in each of untrustedData.releases, at the same index (commonest first)'),
    tagCounts: z
      .array(
        z.object({
          events: z.number().int(),
          counts: z.array(z.number().int()),
          otherValuesEvents: z
            .number()
            .int()
            .optional()
            .describe('present when values were left out: the events carrying one of them (verbose: true shows more)'),
        }),
      )
      .optional()
      .describe('for untrustedData.tags[i]: the events carrying the key, and counts[j] those with its values[j]'),
    leftOut: z
      .object({
        otherEnvironmentsEvents: z.number().int().optional().describe('events in environments beyond those listed'),
        otherReleasesEvents: z.number().int().optional().describe('events in releases beyond those listed'),
        tagKeys: z.number().int().optional().describe('tag keys beyond those listed (at least this many)'),
        olderActivity: z.literal(true).optional().describe('present when older activity entries were left out'),
        rawEventCut: z
          .literal(true)
          .optional()
          .describe(
            "present when the raw event's text and lists were cut closer to keep the answer near 200,000 characters; GET /api/v1/organizations/{org}/issues/{shortId} has the latest event whole",
          ),
      })
      .optional()
      .describe('what the lists above left out, as counts; absent when nothing was (verbose: true shows more)'),
    similarIssues: z
      .array(
        z.object({
          shortId: z.string(),
          reason: z.enum(['same_exception_and_frame', 'similar_title']),
          status: z.string(),
          count: z.number(),
        }),
      )
      .optional(),
    // Every section that may be empty is left out when it is (tool-kit/without-empty.ts).
    untrustedData: z.object({
      title: z.string(),
      culprit: z.string().optional(),
      message: z.string().optional().describe('the log message, for an event sent without an exception'),
      environment: z.string().optional().describe("the latest event's"),
      release: z.string().optional().describe("the latest event's"),
      regressionRelease: z.string().optional(),
      exceptions: z
        .array(z.unknown())
        .optional()
        .describe(
          'outermost first, each {type, value (the outermost one\'s left out when the title is "type: value"), ' +
            'mechanism (the outermost only), crashFrame {file, line, column, function, ' +
            'context: source lines by line number}, stack (oldest first: a line per in-app frame, [crash frame] where it is, ' +
            'a line per run of library frames), cause (the exception it was raised from, nested) or group (an exception ' +
            "group's members)}",
        ),
      eventStack: z.unknown().optional().describe('{crashFrame, stack} of a stack trace sent without an exception'),
      breadcrumbs: z
        .array(z.string())
        .optional()
        .describe('oldest first: time (UTC), category, level when not info, message, data'),
      logs: z
        .array(z.string())
        .optional()
        .describe(
          "the trace's newest logs in every project the token sees, oldest first: time (UTC), level, body, attributes; " +
            "another project's start with its slug in (parentheses); a first line in [brackets] when older ones were left out",
        ),
      sampleUsers: z
        .array(z.unknown())
        .optional()
        .describe(
          "the users of the latest events, up to 5 (the count is issue.userCount): each one's fields, or its id alone when that is all the SDK sent",
        ),
      environments: z.array(z.string()),
      releases: z.array(z.string()),
      tags: z
        .array(z.object({ key: z.string(), values: z.array(z.string()) }))
        .optional()
        .describe('the keys most events carry'),
      similarIssueTitles: z.array(z.object({ shortId: z.string(), title: z.string() })).optional(),
      rawEvent: z.unknown().optional().describe('with include: ["raw"]'),
    }),
    agentWrittenData: z
      .object({
        resolution: writtenSchema.optional().describe("the marker's commit, release and note"),
        activity: z
          .array(z.record(z.string(), z.unknown()))
          .optional()
          .describe(
            "the text people or tokens wrote with activity[i], at index i ({} for an entry without any, and for the resolve whose text is resolution's: said there)",
          ),
      })
      .optional()
      .describe('absent when no person or token wrote any text on this issue'),
  },
  async run(input, context) {
    const limits = input.verbose ? LIMITS.verbose : LIMITS.default;
    const { project, issue } = await issueByShortId(context, input.shortId);
    const now = context.now();
    const latest = await latestIssueEvent(context.events, issue, input.environment);
    const payload = latest?.payload;
    // The newest of the trace's logs, in every project the token sees: a browser issue's trace goes
    // on into the backend's project, whose logs said nothing here. A first line says when older
    // ones were left out.
    const others = latest?.traceId ? (await visibleProjects(context)).filter((p) => p.id !== project.id) : [];
    const slugOf = new Map(others.map((p) => [p.id, p.slug]));
    // A day either side of the event: a trace is one request, and over every project the token
    // sees ClickHouse (sorted by project and time, not trace) read all of retention otherwise.
    const traceLogs = latest?.traceId
      ? await context.logs.searchLogs({
          projectId: project.id,
          moreProjectIds: others.map((p) => p.id),
          traceId: latest.traceId,
          since: Math.max(latest.timestamp - TRACE_LOG_SPAN_SECONDS, now.getTime() / 1000 - context.maxWindowMinutes * 60),
          until: latest.timestamp + TRACE_LOG_SPAN_SECONDS,
          limit: limits.logs,
        })
      : undefined;
    const logs = traceLogs?.items ?? [];
    const users = await context.events.latestEventPerUser(project.id, issue.id, 5);
    const similar = await findSimilarIssues(context.metadata, issue);
    // One past the limit, to know whether older entries were left out.
    const activityRead = await context.metadata.listIssueActivity(issue.id, limits.activity + 1);
    const activity = activityRead.slice(0, limits.activity);
    const tags = tagSummaryView(await context.metadata.tagSummary(issue.id, TAG_KEYS_READ, limits.tags.values), limits.tags);
    const leftOut: { rawEventCut?: true } & typeof tags.facts.leftOut & { olderActivity?: true } = {
      ...tags.facts.leftOut,
      ...(activityRead.length > limits.activity && { olderActivity: true as const }),
    };
    const series = await dailySeries(context.events, project.id, issue.id, now, DAYS);
    // The days before the issue was first seen are zeros by definition: left out. So are the days
    // retention has pruned, wholly or in part (their zeros read as quiet days). Today always stays.
    const firstSeenDay = issue.firstSeen.toISOString().slice(0, 10);
    const prunedDay = new Date(now.getTime() - context.maxWindowMinutes * 60_000).toISOString().slice(0, 10);
    const days = series.filter((d, i) => (d.day >= firstSeenDay && d.day > prunedDay) || i === series.length - 1);
    const resolutionText = resolutionWritten(issue.resolution);
    // The resolve that set the marker wrote the marker's text: said once, under resolution.
    const writtenActivity = activity
      .map(activityWritten)
      .map((text) => (resolutionText && sameText(text, resolutionText) ? {} : text));
    const written = withoutEmpty({
      resolution: resolutionText,
      activity: writtenActivity.some((w) => Object.keys(w).length > 0) ? writtenActivity : [],
    });
    const eventSeconds = latest?.timestamp ?? 0;
    const untrusted = {
      title: issue.title,
      ...withoutEmpty({
        culprit: issue.culprit,
        // A message event's title is its message: said once.
        message: payload && eventMessage(payload) !== issue.title ? eventMessage(payload) : null,
        environment: latest?.environment,
        release: latest?.release,
        regressionRelease: issue.regressionRelease,
        exceptions: payload ? withoutTitleValue(exceptionsView(payload, limits.exceptions), issue.title) : [],
        eventStack: payload ? eventStackView(payload, limits.exceptions) : null,
        breadcrumbs: breadcrumbLines(payload?.breadcrumbs?.values ?? [], eventSeconds, limits.lineLength, limits.breadcrumbs),
        logs: [
          ...(traceLogs?.nextCursor
            ? [
                `[older logs of this trace left out: search_logs with traceId ${latest!.traceId} reads them all, project by project]`,
              ]
            : []),
          ...[...logs]
            .sort((a, b) => a.timestamp - b.timestamp)
            .map((log) => {
              const line = logLine(log, eventSeconds, limits.lineLength);
              const slug = slugOf.get(log.projectId);
              return slug === undefined ? line : `(${slug}) ${line}`;
            }),
        ],
        sampleUsers: users.map((event) => sampleUser(event, input.verbose)),
        tags: tags.untrusted.tags,
        similarIssueTitles: similar.map((s) => ({ shortId: s.issue.shortId, title: s.issue.title })),
      }),
      environments: tags.untrusted.environments,
      releases: tags.untrusted.releases,
      ...(input.include.includes('raw') && { rawEvent: payload ?? null }),
    };
    let untrustedData = bounded(untrusted, limits.bounds) as typeof untrusted;
    // The raw event is bounded field by field only: one of 1 MiB, its text escaped (each
    // non-ASCII character six), made an answer of megabytes. Cut closer, as search_logs cuts a
    // record larger than its whole answer.
    for (const cut of RAW_CUTS) {
      if (!untrustedData.rawEvent || escapedJsonLength(untrustedData) <= ANSWER_BUDGET_CHARS) break;
      untrustedData = { ...untrustedData, rawEvent: bounded(payload, cut) as typeof payload };
      leftOut.rawEventCut = true;
    }
    return {
      summary:
        `${issue.shortId}: ${issue.status}, ${plural(issue.count, 'event')}, ${plural(issue.userCount, 'user')}` +
        `${latest ? '' : noEvent(input.environment)}.`,
      result: {
        issue: issueFacts(issue, { withProject: true, withoutListedEnvironments: true }),
        ...withoutEmpty({
          resolution: resolutionView(issue.resolution),
          activity: activity.map(activityView),
          latestEvent: latest && eventFacts(latest),
        }),
        dailyCounts: { firstDay: days[0]!.day, counts: days.map((d) => d.count) },
        eventsPerEnvironment: tags.facts.eventsPerEnvironment,
        eventsPerRelease: tags.facts.eventsPerRelease,
        ...withoutEmpty({
          tagCounts: tags.facts.tagCounts,
        }),
        ...(Object.keys(leftOut).length > 0 && { leftOut }),
        ...withoutEmpty({
          similarIssues: similar.map((s) => ({
            shortId: s.issue.shortId,
            reason: s.reason,
            status: s.issue.status,
            count: s.issue.count,
          })),
        }),
        untrustedData,
        ...(Object.keys(written).length > 0 && { agentWrittenData: bounded(written, limits.bounds) as typeof written }),
      },
    };
  },
});

// Who was affected, not everything an application attached to the user: the identifying fields
// by default (geo and data can be large), all of them with verbose.
const USER_FIELDS = ['id', 'email', 'username', 'name', 'segment', 'ip_address'];

function sampleUser(event: StoredEvent, verbose: boolean): Record<string, unknown> | string {
  const user = event.payload.user;
  if (!user) return { key: event.userKey };
  const shown = verbose ? user : Object.fromEntries(Object.entries(user).filter(([key]) => USER_FIELDS.includes(key)));
  // Many SDK setups send only an id: the id alone, not {"id": ...} for each user.
  const keys = Object.keys(shown);
  return keys.length === 1 && keys[0] === 'id' && typeof shown.id === 'string' ? shown.id : shown;
}

function sameText(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function eventFacts(event: StoredEvent) {
  return {
    eventId: event.eventId,
    timestamp: new Date(event.timestamp * 1000).toISOString(),
    level: event.level,
    platform: knownPlatform(event.platform),
    ...(event.traceId && { traceId: event.traceId }),
  };
}

function noEvent(environment: string | undefined): string {
  return environment === undefined
    ? '; no stored event (retention may have pruned them)'
    : '; no stored event from the environment asked for (untrustedData.environments has those it was seen in)';
}
