// whats_new: what needs attention: issues first seen in the window (or with the release),
// issues that regressed in it (or in the release), and issues spiking in it.
import { z } from 'zod';
import { BASELINE_WINDOWS, findSpikes } from '../../core/issues/spiking.ts';
import type { Issue, IssueQuery, IssueStatus, Project } from '../../core/ports/metadata-store.ts';
import { issueFacts, issueFactsSchema, issueText, issueTextSchema, projectSlugInput } from '../tool-kit/issue-views.ts';
import { projectBySlug, visibleProjects } from '../tool-kit/scope.ts';
import { defineTool, type ToolContext } from '../tool-kit/tool.ts';

const MAX_PER_LIST = 25;

export const whatsNew = defineTool({
  name: 'whats_new',
  title: "What's new",
  description:
    'New issues, regressions (resolved issues that came back) and spiking issues (at least 3x their usual rate and 10 events) ' +
    'in the last sinceMinutes, or for one release. Ignored and snoozed issues are left out. Without project: every ' +
    'project the token can see.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    project: projectSlugInput.optional(),
    release: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('new issues first seen in, and regressions that came with, this release'),
    sinceMinutes: z.number().int().min(1).max(525_600).default(1440).describe('the window, default 1440 (a day)'),
  },
  outputSchema: {
    window: z.object({ since: z.string(), until: z.string(), minutes: z.number().int() }),
    projects: z.array(z.string()),
    newIssues: z.array(issueFactsSchema),
    regressions: z.array(issueFactsSchema),
    spiking: z.array(issueFactsSchema.extend({ eventsInWindow: z.number().int(), baselinePerWindow: z.number() })),
    truncated: z.boolean().describe(`true when a list had more than ${MAX_PER_LIST} entries`),
    untrustedData: z.object({ issues: z.array(issueTextSchema) }),
  },
  async run(input, context) {
    const projects = input.project ? [await projectBySlug(context, input.project)] : await visibleProjects(context);
    const minutes = Math.min(input.sinceMinutes, context.maxWindowMinutes);
    const until = context.now();
    const since = new Date(until.getTime() - minutes * 60_000);
    const byRelease = input.release;
    // Ignored and snoozed issues asked not to be brought up; a regression that was resolved
    // again has been dealt with, so regressions are the ones still unresolved.
    const newIssues = await collect(
      context,
      projects,
      ['unresolved', 'resolved'],
      byRelease ? { firstRelease: byRelease } : { firstSeenSince: since },
    );
    const regressions = await collect(
      context,
      projects,
      ['unresolved'],
      byRelease ? { regressionRelease: byRelease } : { regressedSince: since },
    );
    const spiking = await spikes(context, projects, since, until, minutes);
    const truncated = [newIssues, regressions, spiking].some((list) => list.length > MAX_PER_LIST);
    const shown = {
      newIssues: newIssues.slice(0, MAX_PER_LIST),
      regressions: regressions.slice(0, MAX_PER_LIST),
      spiking: spiking.slice(0, MAX_PER_LIST),
    };
    const mentioned = new Map<string, Issue>();
    for (const issue of [...shown.newIssues, ...shown.regressions, ...shown.spiking.map((s) => s.issue)]) {
      mentioned.set(issue.shortId, issue);
    }
    const scope = byRelease ? 'for that release' : `in the last ${minutes} minutes`;
    return {
      summary: `${newIssues.length} new, ${regressions.length} regressed, ${spiking.length} spiking ${scope} across ${projects.length} project${projects.length === 1 ? '' : 's'}.`,
      result: {
        window: { since: since.toISOString(), until: until.toISOString(), minutes },
        projects: projects.map((p) => p.slug),
        newIssues: shown.newIssues.map(issueFacts),
        regressions: shown.regressions.map(issueFacts),
        spiking: shown.spiking.map((s) => ({
          ...issueFacts(s.issue),
          eventsInWindow: s.count,
          baselinePerWindow: Math.round(s.baselineAverage * 100) / 100,
        })),
        truncated,
        untrustedData: { issues: [...mentioned.values()].map(issueText) },
      },
    };
  },
});

/** Up to one more than shown, per project and status, so truncation is known. */
async function collect(
  context: ToolContext,
  projects: Project[],
  statuses: IssueStatus[],
  filter: Partial<IssueQuery>,
): Promise<Issue[]> {
  const found: Issue[] = [];
  for (const project of projects) {
    for (const status of statuses) {
      const page = await context.metadata.listIssues({ projectId: project.id, status, limit: MAX_PER_LIST + 1, ...filter });
      found.push(...page.items);
    }
  }
  return found.sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime());
}

async function spikes(context: ToolContext, projects: Project[], since: Date, until: Date, minutes: number) {
  if (projects.length === 0) return [];
  const ids = projects.map((p) => p.id);
  const start = since.getTime() / 1000;
  const window = minutes * 60;
  // No further back than retention keeps events: a pruned past would look like a quiet one.
  const history = until.getTime() / 1000 - context.maxWindowMinutes * 60;
  const windows = Math.max(0, Math.min(BASELINE_WINDOWS, Math.floor((start - history) / window)));
  const current = await context.events.countEventsByIssue(ids, start, until.getTime() / 1000);
  const baseline = windows > 0 ? await context.events.countEventsByIssue(ids, start - windows * window, start) : new Map();
  const out: Array<{ issue: Issue; count: number; baselineAverage: number }> = [];
  for (const spike of findSpikes(current, baseline, windows).slice(0, MAX_PER_LIST + 1)) {
    const issue = await context.metadata.getIssue(spike.issueId);
    // Ignored and snoozed issues asked not to be brought up.
    if (issue && (issue.status === 'unresolved' || issue.status === 'resolved')) out.push({ issue, ...spike });
  }
  return out;
}
