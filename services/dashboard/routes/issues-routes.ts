// The Issues page (/organizations/{org}/issues) and its bulk actions (POST .../issues/bulk).
// The list reads the same store queries as list_issues, through the same search syntax; the
// actions go through core's triage (triageIssues for the selected rows, triageMatching for every
// issue matching the filter, as bulk_update_issues does), as the signed-in person.
import { h } from 'preact';
import { NotFoundError, UserInputError } from '../../core/errors.ts';
import { matchingIssues, MAX_BULK_ISSUES, triageAll, triageMatching, type Matches } from '../../core/issues/bulk-triage.ts';
import { hourlySeriesByIssue } from '../../core/issues/event-series.ts';
import { ISSUE_ACTIONS, MAX_SNOOZE_MINUTES, type IssueAction } from '../../core/issues/lifecycle.ts';
import { triageIssues } from '../../core/issues/triage.ts';
import type { Issue, IssueQuery } from '../../core/ports/issue-store.ts';
import type { Project } from '../../core/ports/tenancy-store.ts';
import { filterFields, filterParams, issueQueryOf, readListFilter, type ListFilter } from '../issues/issues-filter.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { IssuesConfirmPage } from '../pages/issues-confirm.tsx';
import { formatCount, formatQuantity } from '../components/formats.ts';
import { IssuesPage } from '../pages/issues.tsx';
import { NoProjectsPage } from '../pages/no-projects.tsx';
import { isRowId } from '../../core/row-id.ts';

const PAGE_SIZE = 25;
/** Issues selected by their checkboxes in one post: a page's worth, with room. */
const MAX_SELECTED = 100;
const DEFAULT_SNOOZE_MINUTES = 60;
/** Options in the environment and release filters; a value beyond them still works when typed into the address. */
const MAX_CHOICES = 100;

export const issuesRoutes: OrganizationRoute[] = [
  { method: 'GET', path: /^issues$/, handle: showIssues },
  { method: 'POST', path: /^issues\/bulk$/, handle: bulkAction },
];

const ISSUES_NEED =
  'Issues belong to a project. Create one to get its DSN, point a Sentry SDK at it, and its errors show up here.';

async function showIssues(page: OrganizationPage): Promise<void> {
  page.require('read');
  const projects = await page.deps.metadata.listProjects(page.organization.id);
  const frame = {
    assets: page.assets,
    csrf: page.csrf,
    viewer: page.viewer,
    organization: page.organization.slug,
    href: page.href,
  };
  if (projects.length === 0)
    return page.send(200, h(NoProjectsPage, { ...frame, title: 'Issues', current: 'issues', purpose: ISSUES_NEED }));

  let filter: ListFilter;
  let error: string | undefined;
  try {
    filter = readListFilter(new URLSearchParams(page.ctx.querystring));
  } catch (refused) {
    if (!(refused instanceof UserInputError)) throw refused;
    // A hand-edited address: the list without its filters, and why.
    filter = { project: page.ctx.query.project?.toString() ?? '', query: '', sort: 'lastSeen' };
    error = refused.message;
  }
  const project = projectOf(projects, filter.project);
  filter.project = project.slug;
  const now = page.now();
  const { metadata, events } = page.deps;

  let query: IssueQuery | undefined;
  try {
    query = issueQueryOf(filter, project.id, now);
  } catch (refused) {
    if (!(refused instanceof UserInputError)) throw refused;
    error = refused.message;
  }
  let listed: { items: Issue[]; nextCursor?: string | undefined } = { items: [] };
  if (query) {
    try {
      listed = await metadata.listIssues({
        ...query,
        sort: filter.sort,
        limit: PAGE_SIZE,
        ...(filter.cursor ? { cursor: filter.cursor } : {}),
      });
    } catch (refused) {
      // A cursor edited by hand, or kept from another order.
      if (!(refused instanceof UserInputError)) throw refused;
      error = refused.message;
      query = undefined;
    }
  }
  const total = !query ? 0 : listed.nextCursor || filter.cursor ? await metadata.countIssues(query) : listed.items.length;
  const ids = listed.items.map((issue) => issue.id);
  const [series, environments, releases] = await Promise.all([
    hourlySeriesByIssue(events, project.id, ids, now),
    metadata.listEnvironments(project.id, MAX_CHOICES),
    metadata.listReleases(project.id, MAX_CHOICES),
  ]);
  const sparklines = new Map([...series].map(([id, hours]) => [id, hours.map((h) => h.count)]));

  page.send(
    error ? 400 : 200,
    h(IssuesPage, {
      ...frame,
      projects,
      project,
      filter,
      status: query?.status ?? filter.status ?? 'unresolved',
      issues: listed.items,
      sparklines,
      nextCursor: listed.nextCursor,
      total,
      environments,
      releases: releases.map((r) => r.version),
      error,
      notice: doneNotice(new URLSearchParams(page.ctx.querystring)),
      canTriage: page.can('triage'),
      canDelete: page.can('delete'),
      now,
    }),
  );
}

async function bulkAction(page: OrganizationPage): Promise<void> {
  const form = await page.form();
  if (!form) return;
  const action = form.get('action') as IssueAction;
  if (!ISSUE_ACTIONS.includes(action)) {
    throw new UserInputError(`action "${String(action).slice(0, 40)}" is not one of ${ISSUE_ACTIONS.join(', ')}`);
  }
  // Checked before anything is looked up, so a refusal says nothing about the issues.
  page.require(action === 'delete' ? 'delete' : 'triage');
  const snoozeMinutes = action === 'snooze' ? readSnoozeMinutes(form.get('snoozeMinutes')) : undefined;
  const filter = readListFilter(form);
  const projects = await page.deps.metadata.listProjects(page.organization.id);
  const project = projectOf(projects, filter.project);
  filter.project = project.slug;
  const now = page.now();
  const all = form.get('scope') === 'all';
  const query = issueQueryOf(filter, project.id, now);
  const listHref = `${page.href('issues')}?${filterParams(filter)}`;

  const selected = all ? [] : await selectedIssues(page, project, form.getAll('issue'));
  const confirmed = form.get('confirm') === 'yes';
  const sorted = { ...query, sort: filter.sort };
  // Every issue matching that a confirmed delete takes, read once and no more than were shown.
  let toDelete: Matches | undefined;
  if (all || action === 'delete') {
    const count = all ? await page.deps.metadata.countIssues(query) : selected.length;
    const confirmation = (status: number, error?: string) =>
      page.send(
        status,
        h(IssuesConfirmPage, {
          assets: page.assets,
          csrf: page.csrf,
          viewer: page.viewer,
          organization: page.organization.slug,
          action,
          count,
          limit: MAX_BULK_ISSUES,
          filterText: all ? describeFilter(filter, query, project) : undefined,
          fields: [
            ...filterFields(filter),
            ['action', action],
            ...(snoozeMinutes ? [['snoozeMinutes', String(snoozeMinutes)] as [string, string]] : []),
            ...(all ? [['scope', 'all'] as [string, string]] : selected.map((i) => ['issue', String(i.id)] as [string, string])),
          ],
          actionHref: page.href('issues', 'bulk'),
          cancelHref: listHref,
          error,
        }),
      );
    if (!confirmed) return confirmation(200);
    if (action === 'delete') {
      // What the page showed must still be what is deleted: more issues matching since (a flood
      // arriving) would be deleted unseen, whichever the person typed.
      const shown = Number(form.get('count'));
      const taken = Math.min(count, MAX_BULK_ISSUES);
      if (all && shown !== taken) {
        return confirmation(
          409,
          `${formatCount(taken)} ${taken === 1 ? 'issue matches' : 'issues match'} now, not the ${formatCount(shown)} shown before: check the number and confirm again; nothing was deleted.`,
        );
      }
      // Compared with the number this request counted, never the one the form posted: a form
      // that posted neither compared '' with '' and deleted without anything typed.
      const typed = (form.get('typed') ?? '').trim().replace(/[,\s]/g, '').toLowerCase();
      if (typed !== 'delete' && typed !== String(all ? taken : count)) {
        return confirmation(400, `Type ${formatCount(all ? taken : count)} or the word delete to confirm; nothing was deleted.`);
      }
      if (all) {
        // Read at most as many as were shown: any that arrived since the count above are not
        // deleted unseen.
        toDelete = await matchingIssues(page.deps.metadata, sorted, taken);
        if (toDelete.more && taken < MAX_BULK_ISSUES) {
          return confirmation(
            409,
            `More issues match now than the ${formatCount(taken)} shown: check the number and confirm again; nothing was deleted.`,
          );
        }
      }
    }
  }

  const request = { action, ...(snoozeMinutes ? { snoozeMinutes } : {}) };
  const actor = { kind: 'person', name: page.viewer.email } as const;
  const ports = { metadata: page.deps.metadata, events: page.deps.events };
  const result = toDelete
    ? { ...(await triageAll(ports, project.id, toDelete.issues, request, actor, now)), more: toDelete.more }
    : all
      ? await triageMatching(ports, sorted, request, actor, now)
      : await triageIssues(ports, project.id, selected, request, actor, now);
  const more = 'more' in result && result.more ? '&more=1' : '';
  page.seeOther(`${listHref}&done=${action}&n=${result.matched}${more}`);
}

/** The project the filter names, or the organization's first. */
function projectOf(projects: Project[], slug: string): Project {
  if (!slug) return projects[0]!;
  const project = projects.find((p) => p.slug === slug);
  if (!project) throw new NotFoundError(`this organization has no project "${slug.slice(0, 60)}"`);
  return project;
}

async function selectedIssues(page: OrganizationPage, project: Project, values: string[]): Promise<Issue[]> {
  if (values.length === 0)
    throw new UserInputError('No issue was selected: tick the box of at least one issue, or select all matching.');
  if (values.length > MAX_SELECTED) {
    throw new UserInputError(
      `${values.length} issues were selected; at most ${MAX_SELECTED} at once, or select all matching the filter`,
    );
  }
  const ids = [...new Set(values.map(Number))];
  if (ids.some((id) => !isRowId(id))) {
    throw new UserInputError('an issue to act on is not an issue id');
  }
  const found = await Promise.all(ids.map((id) => page.deps.metadata.getIssue(id)));
  // An issue of another project (or one deleted meanwhile) is left out, as if never selected.
  const issues = found.filter((issue): issue is Issue => issue?.projectId === project.id);
  if (issues.length === 0) throw new NotFoundError('none of the selected issues exists in this project any more');
  return issues;
}

function readSnoozeMinutes(value: string | null): number {
  if (!value) return DEFAULT_SNOOZE_MINUTES;
  const minutes = Number(value);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_SNOOZE_MINUTES) {
    throw new UserInputError(
      `snooze minutes must be a whole number from 1 to ${MAX_SNOOZE_MINUTES}; got "${value.slice(0, 20)}"`,
    );
  }
  return minutes;
}

/** The filter in words, for the confirmation's question. */
function describeFilter(filter: ListFilter, query: IssueQuery, project: Project): string {
  const parts = [`project ${project.slug}`, `status ${query.status ?? 'unresolved'}`];
  if (filter.level) parts.push(`level ${filter.level}`);
  if (filter.environment) parts.push(`environment ${filter.environment}`);
  if (filter.release) parts.push(`first release ${filter.release}`);
  if (filter.window) parts.push(`last seen in the last ${filter.window}`);
  if (filter.query.trim()) parts.push(`search “${filter.query.trim()}”`);
  return parts.join(', ');
}

const DONE: Record<IssueAction, string> = {
  resolve: 'Resolved',
  unresolve: 'Unresolved',
  ignore: 'Ignored',
  snooze: 'Snoozed',
  delete: 'Deleted',
};

const MORE_MATCHED = `More matched than one action takes (${formatCount(MAX_BULK_ISSUES)}): once these no longer match the filter, select all matching again for the next ones; or narrow the filter.`;

/** The notice after an action, from the address the action redirected to (only these words, never text from the address). */
function doneNotice(params: URLSearchParams): string | undefined {
  const action = params.get('done') as IssueAction;
  const n = Number(params.get('n'));
  if (!ISSUE_ACTIONS.includes(action) || !Number.isSafeInteger(n) || n < 0) return undefined;
  const done = `${DONE[action]} ${formatQuantity(n, 'issue')}.`;
  return params.get('more') === '1' ? `${done} ${MORE_MATCHED}` : done;
}
