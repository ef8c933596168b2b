// One issue's page (/organizations/{org}/issues/{shortId}), its event permalinks
// (.../events/{eventId}), the delete confirmation, and the triage actions posted from it. The
// actions run core/issues/triage.ts, as update_issue does, with the same checks before any
// issue is looked up, acted on by the signed-in person.
import { h } from 'preact';
import { UserInputError } from '../../core/errors.ts';
import { redirectNotice } from '../redirect-notice.ts';
import { checkResolveFields, checkSnoozeMinutes } from '../../core/issues/action-checks.ts';
import { ISSUE_ACTIONS, type IssueAction } from '../../core/issues/lifecycle.ts';
import { triageIssues } from '../../core/issues/triage.ts';
import { TRACE_VIEWS, type TraceView } from '../components/issue/stack-trace.tsx';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { IssuePage } from '../pages/issue.tsx';
import { findIssue, loadIssuePage, type ChartPeriod } from '../pages/issue-data.ts';
import { IssueDeletePage } from '../pages/issue-delete.tsx';

/** The notice after each action: fixed texts chosen by the address, never text from it. */
const NOTICES: Record<string, string> = {
  resolve: 'Resolved.',
  unresolve: 'Marked unresolved.',
  ignore: 'Ignored: its events are still counted, but it sends no alerts.',
  snooze: 'Snoozed.',
};

async function showIssue(page: OrganizationPage, shortId: string, eventId: string | undefined): Promise<void> {
  page.require('read');
  const query = page.ctx.query;
  const period: ChartPeriod = query.period === '14d' ? '14d' : '24h';
  const view: TraceView = TRACE_VIEWS.find((v) => v === query.view) ?? 'app';
  // The latest event sent from one environment, as get_issue_context's environment input.
  const environment =
    eventId === undefined && typeof query.environment === 'string' && query.environment !== ''
      ? query.environment.slice(0, 200)
      : undefined;
  const data = await loadIssuePage(page, shortId, eventId, period, environment);
  const path =
    eventId === undefined ? page.href('issues', data.issue.shortId) : page.href('issues', data.issue.shortId, 'events', eventId);
  page.send(
    200,
    h(IssuePage, {
      data,
      assets: page.assets,
      organization: page.organization.slug,
      viewer: page.viewer,
      csrf: page.csrf,
      now: page.now(),
      view,
      notice: redirectNotice(page.ctx, 'done', NOTICES),
      canTriage: page.can('triage'),
      canDelete: page.can('delete'),
      agentActivityHref: page.can('agent_activity')
        ? `${page.href('settings', 'agent-activity')}?issue=${encodeURIComponent(data.issue.shortId)}`
        : undefined,
      href: page.href,
      absoluteUrl: new URL(path, page.deps.baseUrl).toString(),
    }),
  );
}

export const issueRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: /^issues\/([^/]+)$/,
    handle: (page, [shortId]) => showIssue(page, shortId!, undefined),
  },
  {
    method: 'GET',
    path: /^issues\/([^/]+)\/events\/([^/]+)$/,
    handle: (page, [shortId, eventId]) => showIssue(page, shortId!, eventId!),
  },
  {
    method: 'GET',
    path: /^issues\/([^/]+)\/delete$/,
    async handle(page, [shortId]) {
      page.require('delete');
      const { issue } = await findIssue(page, shortId!);
      page.send(
        200,
        h(IssueDeletePage, {
          assets: page.assets,
          organization: page.organization.slug,
          viewer: page.viewer,
          csrf: page.csrf,
          issue,
          action: page.href('issues', issue.shortId, 'actions'),
          back: page.href('issues', issue.shortId),
        }),
      );
    },
  },
  {
    method: 'POST',
    path: /^issues\/([^/]+)\/actions$/,
    async handle(page, [shortId]) {
      const form = await page.form();
      if (!form) return;
      const request = actionRequest(form);
      // As update_issue: the role and the request are checked before the issue is looked up.
      page.require(request.action === 'delete' ? 'delete' : 'triage');
      checkSnoozeMinutes(request.action, request.snoozeMinutes);
      checkResolveFields(request.action, request.commit, request.release);
      if (request.action === 'delete' && form.get('confirm') !== 'yes') {
        throw new UserInputError(
          'delete removes the issue and its events for good: confirm it on the delete page; nothing was deleted',
        );
      }
      const { project, issue } = await findIssue(page, shortId!);
      await triageIssues(page.deps, project.id, [issue], request, { kind: 'person', name: page.viewer.email }, page.now());
      // To the list of the issue's own project, saying what was done (the list's notice).
      if (request.action === 'delete')
        return page.seeOther(`${page.href('issues')}?${new URLSearchParams({ project: project.slug, done: 'delete', n: '1' })}`);
      page.seeOther(`${page.href('issues', issue.shortId)}?done=${request.action}`);
    },
  },
];

interface PostedAction {
  action: IssueAction;
  snoozeMinutes?: number;
  commit?: string;
  release?: string;
  note?: string;
}

/** The posted form as a triage request; a field out of bounds is a 400 page saying which. */
function actionRequest(form: URLSearchParams): PostedAction {
  const action = ISSUE_ACTIONS.find((a) => a === form.get('action'));
  if (!action)
    throw new UserInputError(`the action must be one of ${ISSUE_ACTIONS.join(', ')}: use the buttons on the issue page`);
  const text = (name: string, max: number) => {
    const value = form.get(name)?.trim();
    if (!value) return undefined;
    if (value.length > max) throw new UserInputError(`the ${name} is ${value.length} characters; at most ${max} are kept`);
    return value;
  };
  const minutesText = form.get('snoozeMinutes')?.trim();
  const snoozeMinutes = minutesText ? Number(minutesText) : undefined;
  if (snoozeMinutes !== undefined && !Number.isInteger(snoozeMinutes)) {
    throw new UserInputError(`snooze minutes must be a whole number, not "${minutesText!.slice(0, 20)}"`);
  }
  const request: PostedAction = { action };
  if (snoozeMinutes !== undefined) request.snoozeMinutes = snoozeMinutes;
  const commit = text('commit', 200);
  const release = text('release', 200);
  const note = text('note', 2000);
  if (commit) request.commit = commit;
  if (release) request.release = release;
  if (note) request.note = note;
  return request;
}
