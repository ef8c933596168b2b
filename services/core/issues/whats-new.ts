// What needs attention (whats_new, and the dashboard's What's new page): each issue once with
// every reason it is there: regressed in the window (or with the release), new in it (or first
// seen with the release), spiking or a burst (core/issues/spiking.ts), sorted (attention.ts).
// One operation for the tool and the page, so both show the same issues for the same reasons.
import { compareAttention, withReason, ATTENTION_REASONS, type Attention, type AttentionReason } from './attention.ts';
import { BASELINE_WINDOWS, findSpikes } from './spiking.ts';
import type { EventStore } from '../ports/event-store.ts';
import type { Issue, IssueQuery, IssueStatus, MetadataStore, Project } from '../ports/metadata-store.ts';

/** How many issues each reason is gathered up to, per project and status: enough to rank the shown ones. */
const MAX_GATHERED = 100;
/** Rising issues looked at most (each not gathered already is a read), so a noisy hour stays one bounded call. */
const MAX_RISES = 100;

interface AttentionRequest {
  projects: Project[];
  since: Date;
  until: Date;
  minutes: number;
  /** The retention period in minutes: the baseline reaches no further back. */
  maxWindowMinutes: number;
  release?: string | undefined;
  environment?: string | undefined;
  sort: Parameters<typeof compareAttention>[0];
}

interface WindowCounts {
  current: Map<number, number>;
  baseline: Map<number, number>;
  /** How many windows the baseline spans: BASELINE_WINDOWS, or fewer when retention keeps less. */
  windows: number;
}

interface AttentionFound {
  /** Every issue found, most pressing first by the sort. */
  all: Attention[];
  /** Issues found with each reason (an issue may have several). */
  counts: Record<AttentionReason, number>;
  /** A reason had more issues than could be ranked. */
  capped: boolean;
  window: WindowCounts;
}

export async function findAttention(
  ports: { metadata: MetadataStore; events: EventStore },
  request: AttentionRequest,
): Promise<AttentionFound> {
  const { projects, since, release, environment } = request;
  const narrow: Partial<IssueQuery> = environment ? { environment } : {};
  // Ignored and snoozed issues asked not to be brought up; a regression that was resolved
  // again has been dealt with, so regressions are the ones still unresolved.
  const regressed = await gather(ports.metadata, projects, ['unresolved'], {
    ...narrow,
    ...(release ? { regressionRelease: release } : { regressedSince: since }),
  });
  const fresh = await gather(ports.metadata, projects, ['unresolved', 'resolved'], {
    ...narrow,
    ...(release ? { firstRelease: release } : { firstSeenSince: since }),
  });
  const window = await countWindow(ports.events, request);
  const gathered = new Map([...regressed.items, ...fresh.items].map((i) => [i.id, i]));
  const rises = await risesIn(
    ports.metadata,
    window,
    gathered,
    (issue) =>
      (issue.status === 'unresolved' || issue.status === 'resolved') &&
      (!environment || issue.environments.includes(environment)) &&
      (!release || issue.lastRelease === release),
  );

  const found = new Map<number, Attention>();
  const add = (issue: Issue, reason: AttentionReason) => {
    const known = found.get(issue.id);
    if (known) known.reasons = withReason(known.reasons, reason);
    else found.set(issue.id, { issue, reasons: [reason], eventsInWindow: window.current.get(issue.id) ?? 0 });
  };
  for (const issue of regressed.items) add(issue, 'regressed');
  for (const issue of fresh.items) add(issue, 'new');
  for (const rise of rises.items) {
    add(rise.issue, rise.kind);
    // A rising issue past what was gathered (a reason had more than MAX_GATHERED) still has the
    // reasons it would have been gathered for: without them a new issue with a burst ranked as
    // a burst alone, below every gathered new one.
    if (gathered.has(rise.issue.id)) continue;
    if (isRegressedIn(rise.issue, request)) add(rise.issue, 'regressed');
    if (isNewIn(rise.issue, request)) add(rise.issue, 'new');
  }

  const all = [...found.values()].sort(compareAttention(request.sort));
  const counts = Object.fromEntries(ATTENTION_REASONS.map((r) => [r, all.filter((a) => a.reasons.includes(r)).length])) as Record<
    AttentionReason,
    number
  >;
  return { all, counts, capped: regressed.capped || fresh.capped || rises.capped, window };
}

/** Whether gathering regressions would have found the issue (as the query in findAttention asks). */
function isRegressedIn(issue: Issue, request: AttentionRequest): boolean {
  if (issue.status !== 'unresolved') return false;
  return request.release
    ? issue.regressionRelease === request.release
    : issue.regressedAt !== null && issue.regressedAt >= request.since;
}

/** Whether gathering new issues would have found it (unresolved or resolved, first seen in the window or with the release). */
function isNewIn(issue: Issue, request: AttentionRequest): boolean {
  if (issue.status !== 'unresolved' && issue.status !== 'resolved') return false;
  return request.release ? issue.firstRelease === request.release : issue.firstSeen >= request.since;
}

/** Up to MAX_GATHERED issues per project and status, and whether any list had more. */
async function gather(metadata: MetadataStore, projects: Project[], statuses: IssueStatus[], filter: Partial<IssueQuery>) {
  const items: Issue[] = [];
  let capped = false;
  for (const project of projects) {
    for (const status of statuses) {
      const page = await metadata.listIssues({ projectId: project.id, status, limit: MAX_GATHERED, ...filter });
      items.push(...page.items);
      capped ||= page.nextCursor !== undefined && page.nextCursor !== null;
    }
  }
  return { items, capped };
}

/** Events per issue in the window and in the windows before it, over the projects. */
async function countWindow(events: EventStore, request: AttentionRequest): Promise<WindowCounts> {
  const { projects, since, until, minutes, maxWindowMinutes } = request;
  if (projects.length === 0) return { current: new Map(), baseline: new Map(), windows: 0 };
  const ids = projects.map((p) => p.id);
  const start = since.getTime() / 1000;
  const window = minutes * 60;
  // No further back than retention keeps events: a pruned past would look like a quiet one.
  const history = until.getTime() / 1000 - maxWindowMinutes * 60;
  const windows = Math.max(0, Math.min(BASELINE_WINDOWS, Math.floor((start - history) / window)));
  const current = await events.countEventsByIssue(ids, start, until.getTime() / 1000);
  const baseline = windows > 0 ? await events.countEventsByIssue(ids, start - windows * window, start) : new Map();
  return { current, baseline, windows };
}

/** The issues spiking or bursting that pass `keep`, with whether there were more than could be looked at. */
async function risesIn(
  metadata: MetadataStore,
  counts: WindowCounts,
  gathered: Map<number, Issue>,
  keep: (issue: Issue) => boolean,
) {
  const all = findSpikes(counts.current, counts.baseline, counts.windows);
  const items: Array<{ issue: Issue; kind: 'spiking' | 'burst' }> = [];
  for (const rise of all.slice(0, MAX_RISES)) {
    const issue = gathered.get(rise.issueId) ?? (await metadata.getIssue(rise.issueId));
    if (issue && keep(issue)) items.push({ issue, kind: rise.kind });
  }
  return { items, capped: all.length > MAX_RISES };
}
