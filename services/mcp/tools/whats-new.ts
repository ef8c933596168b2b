// whats_new: what needs attention, each issue once with every reason it is there: regressed in
// the window (or with the release), new in it (or first seen with the release), spiking (a rise
// against a usual rate) or a burst (a rise with no usual rate: core/issues/spiking.ts), in
// priority order (core/issues/attention.ts) or one of the issue list's orders.
import { z } from 'zod';
import { ATTENTION_REASONS, type AttentionReason } from '../../core/issues/attention.ts';
import { BASELINE_WINDOWS, baselineOf } from '../../core/issues/spiking.ts';
import { findAttention } from '../../core/issues/whats-new.ts';
import { ISSUE_STATUSES, type Project } from '../../core/ports/metadata-store.ts';
import { attentionSortInput, environmentInput } from '../tool-kit/issue-list-options.ts';
import { issueFacts, issueFactsSchema, issueText, issueTextSchema, projectSlugInput } from '../tool-kit/issue-views.ts';
import { isoSeconds } from '../tool-kit/iso-time.ts';
import { asTable, tableSchema } from '../tool-kit/record-table.ts';
import { projectBySlug, visibleProjects } from '../tool-kit/scope.ts';
import { defineTool, type ToolContext } from '../tool-kit/tool.ts';

const MAX_SHOWN = 25;

// Without snoozeUntil: snoozed issues are left out.
const attentionRow = issueFactsSchema.omit({ snoozeUntil: true }).extend({
  reasons: z.array(z.enum(ATTENTION_REASONS)),
  eventsInWindow: z
    .number()
    .int()
    .optional()
    .describe('events in the window, of every environment and release; absent when that is all of them (count)'),
  baselinePerWindow: z
    .number()
    .optional()
    .describe(`spiking only: average events per window over the ${BASELINE_WINDOWS} windows before (a burst's is 0)`),
});

export const whatsNew = defineTool({
  name: 'whats_new',
  title: "What's new",
  description:
    'What needs attention in the last sinceMinutes, or for one release: each issue once, with its reasons: ' +
    'regressed (resolved, came back, still unresolved), new (first seen in the window, or with the release), ' +
    'spiking (at least 10 events in the window and 3x its average over the 24 windows before) and burst (at least ' +
    '10 events in the window and none in the 24 windows before, so no usual rate to compare: a new issue arriving ' +
    'loud, or a quiet one waking up; never counted as spiking). Priority order by default: regressed, then new, then ' +
    'spiking, then burst (an issue ranks by its first reason), then by events in the window. release narrows every ' +
    'reason: new and regressed with that release, spiking and burst to issues whose latest event came with it; a ' +
    'release no event came with is said so. environment narrows to issues seen there (window counts are over every ' +
    'environment). Ignored and snoozed issues are left out. Without project: every project the token can see.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    project: projectSlugInput.optional(),
    release: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('issues first seen in, regressed with, or rising in (latest event) this release'),
    environment: environmentInput,
    sort: attentionSortInput,
    sinceMinutes: z.number().int().min(1).max(525_600).default(1440).describe('the window, default 1440 (a day)'),
  },
  outputSchema: {
    window: z
      .object({
        since: z.string().describe('ISO 8601, to the second'),
        minutes: z.number().int(),
        baselineWindows: z
          .number()
          .int()
          .optional()
          .describe(
            `present when retention keeps fewer than ${BASELINE_WINDOWS} windows before this one: how many spiking compares against (0: every rise is a burst)`,
          ),
      })
      .describe('the last minutes, from since to now'),
    projects: z.array(z.string()),
    sort: attentionSortInput.removeDefault(),
    release: z
      .object({
        knownIn: z.array(z.string()).describe('the projects an event came with the release in; empty: an unknown release'),
      })
      .optional()
      .describe('present with release; the release itself is in untrustedData'),
    counts: z
      .object({
        regressed: z.number().int().optional(),
        new: z.number().int().optional(),
        spiking: z.number().int().optional(),
        burst: z.number().int().optional(),
      })
      .describe(
        'issues found with each reason (an issue may have several), a reason absent when none; lower bounds when countsAreLowerBounds',
      ),
    countsAreLowerBounds: z
      .literal(true)
      .optional()
      .describe('present when a reason had more issues than could be gathered: every count is then a lower bound'),
    status: z
      .enum(ISSUE_STATUSES)
      .optional()
      .describe('the status of every issue listed, when they share one; otherwise each issue has its own'),
    issues: tableSchema(attentionRow, 'the issues, most pressing first'),
    truncated: z
      .literal(true)
      .optional()
      .describe(`present when more than ${MAX_SHOWN} issues were found, or a reason had more than could be ranked`),
    untrustedData: z.object({
      release: z.string().optional().describe('the release asked about'),
      issues: tableSchema(issueTextSchema, "the issues' captured text, in the same order"),
    }),
  },
  async run(input, context) {
    const projects = input.project ? [await projectBySlug(context, input.project)] : await visibleProjects(context);
    const minutes = Math.min(input.sinceMinutes, context.maxWindowMinutes);
    const until = context.now();
    const since = new Date(until.getTime() - minutes * 60_000);
    const { release, environment } = input;
    const { all, counts, capped, window } = await findAttention(context, {
      projects,
      since,
      until,
      minutes,
      maxWindowMinutes: context.maxWindowMinutes,
      release,
      environment,
      sort: input.sort,
    });
    const shown = all.slice(0, MAX_SHOWN);
    const truncated = all.length > MAX_SHOWN || capped;
    const knownIn = release ? await projectsKnowing(context, projects, release) : [];
    const statuses = new Set(shown.map((a) => a.issue.status));
    const status = statuses.size === 1 ? [...statuses][0] : undefined;
    return {
      summary: summary({
        counts,
        found: all.length,
        shown: shown.length,
        truncated,
        capped,
        projects,
        minutes,
        cutToRetention: input.sinceMinutes > minutes,
        release,
        knownIn,
      }),
      result: {
        window: {
          since: isoSeconds(since),
          minutes,
          ...(window.windows < BASELINE_WINDOWS && { baselineWindows: window.windows }),
        },
        projects: projects.map((p) => p.slug),
        sort: input.sort,
        ...(release && { release: { knownIn } }),
        counts: Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)),
        ...(capped && { countsAreLowerBounds: true as const }),
        ...(status && { status }),
        issues: asTable<z.infer<typeof attentionRow>>(
          shown.map((a) => ({
            ...issueFacts(a.issue, { withProject: projects.length > 1, withoutStatus: status !== undefined }),
            reasons: a.reasons,
            ...(a.eventsInWindow !== a.issue.count && { eventsInWindow: a.eventsInWindow }),
            ...(a.reasons.includes('spiking') && {
              baselinePerWindow: Math.round(baselineOf(a.issue.id, window.baseline, window.windows) * 100) / 100,
            }),
          })),
        ),
        ...(truncated && { truncated }),
        untrustedData: { ...(release && { release }), issues: asTable(shown.map((a) => issueText(a.issue))) },
      },
    };
  },
});

function summary(s: {
  counts: Record<AttentionReason, number>;
  found: number;
  shown: number;
  truncated: boolean;
  /** A reason had more issues than could be gathered: every count is a lower bound. */
  capped: boolean;
  projects: Project[];
  minutes: number;
  /** sinceMinutes asked for more than retention keeps. */
  cutToRetention: boolean;
  release: string | undefined;
  knownIn: string[];
}): string {
  const retention = s.cutToRetention ? ' (all that retention keeps: sinceMinutes asked for more)' : '';
  // With a release, new and regressed are the release's, while rises are still of the window.
  const scope = s.release
    ? `for the release given (spiking and burst: in the last ${s.minutes} minutes${retention})`
    : `in the last ${s.minutes} minutes${retention}`;
  const across = `across ${s.projects.length} project${s.projects.length === 1 ? '' : 's'}`;
  const reasons = ATTENTION_REASONS.map((r) => `${s.counts[r]} ${r}`).join(', ');
  // When a reason had more issues than were gathered (capped), the ones gathered are the most
  // recently seen of it (the largest rises for spiking and burst), so the first by the sort are
  // the first of those, not of all.
  const gathered = ' of those gathered (the most recently seen new and regressed, the largest rises)';
  const cut = s.truncated
    ? ` Showing the first ${s.shown} by the sort${s.capped ? gathered : ''}; narrow with project, environment or a shorter window for the rest.`
    : '';
  const unknown =
    s.release && s.knownIn.length === 0
      ? ` No event came with the release given (untrustedData.release) in ${s.projects.map((p) => p.slug).join(', ') || 'any project'}: check its spelling.`
      : '';
  const found = `${s.capped ? 'At least ' : ''}${s.found} issue${s.found === 1 ? '' : 's'} need${s.found === 1 ? 's' : ''}`;
  const bounds = s.capped ? ' (more than could be gathered: every count is a lower bound)' : '';
  return `${found} attention ${scope} ${across}${bounds}: ${reasons}.${cut}${unknown}`;
}

/** The projects where an event came with the release. */
async function projectsKnowing(context: ToolContext, projects: Project[], release: string): Promise<string[]> {
  const known: string[] = [];
  for (const project of projects) if (await context.metadata.findRelease(project.id, release)) known.push(project.slug);
  return known;
}
