// A project's Alert rules pages (/organizations/{org}/projects/{slug}/alert-rules/...): the list,
// New rule, a rule's page, and its forms (save, Send test, delete). Each calls the operation the
// management API and the CLI call (core/alerts/alert-management.ts), after the form's fields are
// checked with core's rules (pages/rule-form.ts) so a refused form names each wrong field. Every
// page and form needs the `alerts` capability (admin, owner), checked here; a rule, a project or
// a channel of another organization is never found.
import { h } from 'preact';
import * as manage from '../../core/alerts/alert-management.ts';
import type { AlertRule } from '../../core/alerts/alert-rules.ts';
import { ConflictError, NotFoundError } from '../../core/errors.ts';
import { redirectNotice } from '../redirect-notice.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import { AlertRulePage } from '../pages/alert-rule.tsx';
import { AlertRulesPage } from '../pages/alert-rules.tsx';
import type { FormNotice } from '../pages/project-parts.tsx';
import {
  EMPTY_RULE_FORM,
  ruleFormFrom,
  ruleFormOf,
  ruleFormProblems,
  ruleInputOf,
  type RuleFormProblems,
  type RuleFormValues,
} from '../pages/rule-form.ts';
import { isRowId } from '../../core/row-id.ts';

/** How many of the project's environments the form suggests. */
const SUGGESTED_ENVIRONMENTS = 20;

/** What a redirect's ?saved= says on the page it lands on. */
const SAVED: Record<string, string> = {
  created: 'The rule is created and enabled. Send test shows what its alerts look like at each channel.',
  saved: 'The rule is saved.',
  deleted: 'The rule is deleted.',
};

const savedNotice = (page: OrganizationPage): FormNotice | undefined => {
  const text = redirectNotice(page.ctx, 'saved', SAVED);
  return text ? { kind: 'saved', text } : undefined;
};

async function projectOf(page: OrganizationPage, slug: string): Promise<Project> {
  const project = await page.deps.metadata.findProject(page.organization.id, slug);
  if (!project) throw new NotFoundError(`no project "${slug}" in ${page.organization.slug}: the Projects page lists them`);
  return project;
}

/** A rule id from the address; anything else is no rule at all. */
async function ruleOf(page: OrganizationPage, project: Project, raw: string): Promise<AlertRule> {
  const id = Number(raw);
  if (!isRowId(id)) {
    throw new NotFoundError(`no alert rule ${raw.slice(0, 20)} in project ${project.slug}: its Alert rules page lists them`);
  }
  return manage.ruleOf(page.deps, project, id);
}

const rulesHref = (page: OrganizationPage, project: Project) => page.href('projects', project.slug, 'alert-rules');

async function listPage(page: OrganizationPage, project: Project) {
  page.ctx.set('Cache-Control', 'no-store');
  page.send(
    200,
    h(AlertRulesPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      project,
      rules: await page.deps.alerts.listRules([project.id]),
      channels: await page.deps.alerts.listChannels(page.organization.id),
      href: page.href,
      now: page.now(),
      notice: savedNotice(page),
    }),
  );
}

interface RulePageState {
  values?: RuleFormValues;
  problems?: RuleFormProblems;
  /** After Send test: the channels that had a test waiting already, and so got none more. */
  tested?: { waiting: Set<number> };
}

/** The channels `?waiting=` names (ids; anything else is ignored). */
function waitingOf(page: OrganizationPage): { waiting: Set<number> } {
  const raw = page.ctx.query.waiting;
  const ids = typeof raw === 'string' ? raw.split(',').map(Number).filter(isRowId) : [];
  return { waiting: new Set(ids) };
}

async function rulePage(
  page: OrganizationPage,
  project: Project,
  rule: AlertRule | undefined,
  status: number,
  state: RulePageState = {},
) {
  const channels = await page.deps.alerts.listChannels(page.organization.id);
  const values =
    state.values ??
    (rule ? ruleFormOf(rule) : { ...EMPTY_RULE_FORM, channelIds: channels.length === 1 ? [String(channels[0]!.id)] : [] });
  page.ctx.set('Cache-Control', 'no-store');
  page.send(
    status,
    h(AlertRulePage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      project,
      rule,
      values,
      problems: state.problems ?? {},
      channels,
      environments: await page.deps.metadata.listEnvironments(project.id, SUGGESTED_ENVIRONMENTS),
      href: page.href,
      now: page.now(),
      notice: state.problems ? undefined : savedNotice(page),
      tested: state.tested && rule ? testedChannels(channels, rule.channelIds, state.tested.waiting) : undefined,
    }),
  );
}

/** The rule's channels after Send test: those a test was queued for, and those that had one waiting. */
function testedChannels<C extends { id: number }>(channels: C[], ruleChannelIds: number[], waiting: Set<number>) {
  const tested = { queued: [] as C[], waiting: [] as C[] };
  for (const channel of channels) {
    if (ruleChannelIds.includes(channel.id)) (waiting.has(channel.id) ? tested.waiting : tested.queued).push(channel);
  }
  return tested;
}

/**
 * The posted form checked against core's rules and the organization's channels: the problems
 * by field, or none. Core checks again when it saves (the same rules), so nothing the form
 * misses gets through.
 */
async function checkedForm(page: OrganizationPage): Promise<{ values: RuleFormValues; problems: RuleFormProblems } | undefined> {
  const form = await page.form();
  if (!form) return undefined;
  const values = ruleFormFrom(form);
  return { values, problems: ruleFormProblems(values, await page.deps.alerts.listChannels(page.organization.id)) };
}

const hasProblems = (problems: RuleFormProblems) => Object.keys(problems).length > 0;

const rules = /^projects\/([^/]+)\/alert-rules$/;
const rulePath = /^projects\/([^/]+)\/alert-rules\/(\d{1,12})$/;
const ruleAction = (action: string) => new RegExp(`^projects\\/([^/]+)\\/alert-rules\\/(\\d{1,12})\\/${action}$`);

export const alertRuleRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: rules,
    async handle(page, [slug]) {
      page.require('alerts');
      await listPage(page, await projectOf(page, slug!));
    },
  },
  {
    method: 'GET',
    path: /^projects\/([^/]+)\/alert-rules\/new$/,
    async handle(page, [slug]) {
      page.require('alerts');
      await rulePage(page, await projectOf(page, slug!), undefined, 200);
    },
  },
  {
    method: 'POST',
    path: rules,
    async handle(page, [slug]) {
      page.require('alerts');
      const project = await projectOf(page, slug!);
      const checked = await checkedForm(page);
      if (!checked) return;
      if (hasProblems(checked.problems)) return rulePage(page, project, undefined, 400, checked);
      const { rule } = await manage.createRule(page.deps, page.organization, project, ruleInputOf(checked.values));
      page.seeOther(`${rulesHref(page, project)}/${rule.id}?saved=created`);
    },
  },
  {
    method: 'GET',
    path: rulePath,
    async handle(page, [slug, id]) {
      page.require('alerts');
      const project = await projectOf(page, slug!);
      const rule = await ruleOf(page, project, id!);
      await rulePage(page, project, rule, 200, { tested: page.ctx.query.saved === 'test' ? waitingOf(page) : undefined });
    },
  },
  {
    method: 'POST',
    path: rulePath,
    async handle(page, [slug, id]) {
      page.require('alerts');
      const project = await projectOf(page, slug!);
      const rule = await ruleOf(page, project, id!);
      const checked = await checkedForm(page);
      if (!checked) return;
      if (hasProblems(checked.problems)) return rulePage(page, project, rule, 400, checked);
      await manage.updateRule(page.deps, page.organization, project, rule.id, ruleInputOf(checked.values));
      page.seeOther(`${rulesHref(page, project)}/${rule.id}?saved=saved`);
    },
  },
  {
    method: 'POST',
    path: ruleAction('test'),
    async handle(page, [slug, id]) {
      page.require('alerts');
      const project = await projectOf(page, slug!);
      const rule = await ruleOf(page, project, id!);
      if (!(await page.form())) return;
      let waiting: number[];
      try {
        waiting = (await manage.testRule(page.deps, page.organization, project, rule.id)).alreadyWaiting;
      } catch (refused) {
        if (!(refused instanceof ConflictError)) throw refused;
        waiting = rule.channelIds;
      }
      const also = waiting.length > 0 ? `&waiting=${waiting.join(',')}` : '';
      page.seeOther(`${rulesHref(page, project)}/${rule.id}?saved=test${also}`);
    },
  },
  {
    method: 'POST',
    path: ruleAction('delete'),
    async handle(page, [slug, id]) {
      page.require('alerts');
      const project = await projectOf(page, slug!);
      const rule = await ruleOf(page, project, id!);
      if (!(await page.form())) return;
      await manage.deleteRule(page.deps, project, rule.id);
      page.seeOther(`${rulesHref(page, project)}?saved=deleted`);
    },
  },
];
