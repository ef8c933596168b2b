// The JSON bodies of webhook requests (SPEC §6, "Payload fields" and "Kinds"): exactly the
// fields SPEC lists, optional ones omitted when they have no value. Event-derived text (titles,
// culprits, environments, release names) is the application's data, passed through untouched;
// the body encoder escapes markup characters and receivers treat it as untrusted.
import type { Level } from '../event/level.ts';
import type { Trigger } from './alert-rules.ts';

export type WebhookKind = Trigger | 'test' | 'digest' | 'overflow_summary';

export interface DigestSection {
  projectName: string;
  countsLine: string;
  /** At most five; null (never empty) when the section has no issue to link. */
  topIssues: Array<{ shortId: string; title: string; url: string }> | null;
}

export interface WebhookPayload {
  kind: WebhookKind;
  title: string;
  body: string;
  url: string;
  level?: Level;
  environment?: string;
  projectName?: string;
  issueShortId?: string;
  timesSeen?: number;
  location?: string;
  ruleName?: string;
  digest?: { headline: string; sections: DigestSection[] };
}

/** Dashboard links: the pages alerts point at. */
export const dashboardUrls = {
  issue: (baseUrl: string, org: string, shortId: string) =>
    `${baseUrl}/organizations/${encodeURIComponent(org)}/issues/${encodeURIComponent(shortId)}`,
  project: (baseUrl: string, org: string, project: string) =>
    `${baseUrl}/organizations/${encodeURIComponent(org)}/projects/${encodeURIComponent(project)}`,
  release: (baseUrl: string, org: string, project: string, version: string) =>
    `${dashboardUrls.project(baseUrl, org, project)}/releases/${encodeURIComponent(version)}`,
  organization: (baseUrl: string, org: string) => `${baseUrl}/organizations/${encodeURIComponent(org)}`,
  channel: (baseUrl: string, org: string, channelId: number) =>
    `${dashboardUrls.organization(baseUrl, org)}/alert-channels/${channelId}`,
  rule: (baseUrl: string, org: string, project: string, ruleId: number) =>
    `${dashboardUrls.project(baseUrl, org, project)}/alert-rules/${ruleId}`,
};

/** At most this many `topIssues` per digest section (SPEC §8). */
export const MAX_TOP_ISSUES = 5;

interface IssueAlertInput {
  kind: Trigger;
  ruleName: string;
  projectName: string;
  url: string;
  issueShortId: string;
  /** The event's title, level, environment and culprit. */
  title: string;
  level: Level;
  environment: string | null;
  culprit: string;
  timesSeen: number;
  /** Why the rule fired, in a sentence. */
  body: string;
}

export function issueAlert(input: IssueAlertInput): WebhookPayload {
  return withoutEmpty({
    kind: input.kind,
    title: input.title,
    body: input.body,
    url: input.url,
    level: input.level,
    environment: input.environment ?? undefined,
    projectName: input.projectName,
    issueShortId: input.issueShortId,
    timesSeen: input.timesSeen,
    location: input.culprit,
    ruleName: input.ruleName,
  });
}

export function newReleaseAlert(input: { release: string; projectName: string; ruleName: string; url: string }): WebhookPayload {
  return withoutEmpty({
    kind: 'new_release',
    title: `New release ${input.release} in ${input.projectName}`,
    body: `${input.projectName} saw release ${input.release} for the first time.`,
    url: input.url,
    projectName: input.projectName,
    ruleName: input.ruleName,
  });
}

/** A channel's Send test: only kind, title, body and url. */
export function channelTest(channelName: string, baseUrl: string): WebhookPayload {
  return {
    kind: 'test',
    title: `Test alert from Errata for channel ${channelName}`,
    body: 'If you can read this, the channel works: this request was signed with its current secret.',
    url: baseUrl,
  };
}

/** A rule's Send test: the fields of an issue alert, for a sample issue TEST-1. */
export function ruleTest(input: { ruleName: string; projectName: string; url: string }): WebhookPayload {
  return {
    ...issueAlert({
      kind: 'new_issue',
      ruleName: input.ruleName,
      projectName: input.projectName,
      url: input.url,
      issueShortId: 'TEST-1',
      title: 'TypeError: this is a test alert',
      level: 'error',
      environment: 'production',
      culprit: 'app/checkout.js in submitOrder',
      timesSeen: 1,
      body: `A test of rule ${input.ruleName}: no issue fired it.`,
    }),
    kind: 'test',
  };
}

/** A scheduled digest: its title is the headline; sections only for projects with something to report. */
export function digestAlert(input: { headline: string; body: string; url: string; sections: DigestSection[] }): WebhookPayload {
  return {
    kind: 'digest',
    title: input.headline,
    body: input.body,
    url: input.url,
    digest: {
      headline: input.headline,
      sections: input.sections.map((section) => ({
        projectName: section.projectName,
        countsLine: section.countsLine,
        topIssues: section.topIssues && section.topIssues.length > 0 ? section.topIssues.slice(0, MAX_TOP_ISSUES) : null,
      })),
    },
  };
}

/**
 * In place of the alerts a channel's rate limit held back: per project, how many and of which
 * kinds, with a link to the project (SPEC §6: one topIssues entry, shortId "Project", title
 * "Open project").
 */
export function overflowSummary(input: {
  channelName: string;
  url: string;
  projects: Array<{ projectName: string; url: string; kinds: Map<WebhookKind, number> }>;
}): WebhookPayload {
  const total = input.projects.reduce((sum, p) => sum + [...p.kinds.values()].reduce((a, b) => a + b, 0), 0);
  const headline = `${total} alert${total === 1 ? '' : 's'} to ${input.channelName} held back by its rate limit`;
  return {
    kind: 'overflow_summary',
    title: headline,
    body: `${headline}. This count includes rate-limit delays and repeated refusals; it is not a count of distinct issues.`,
    url: input.url,
    digest: {
      headline,
      sections: input.projects.map((project) => {
        const count = [...project.kinds.values()].reduce((a, b) => a + b, 0);
        const kinds = [...project.kinds.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([kind, n]) => `${n} ${kind}`)
          .join(', ');
        return {
          projectName: project.projectName,
          countsLine: `${count} held back: ${kinds}`,
          topIssues: [{ shortId: 'Project', title: 'Open project', url: project.url }],
        };
      }),
    },
  };
}

/** What made each trigger fire, in a sentence (the body of an issue alert). */
export function triggerSentence(
  kind: Trigger,
  details: { threshold?: number | null; windowMinutes?: number | null; milestone?: number; release?: string | null },
): string {
  switch (kind) {
    case 'new_issue':
      return 'A new issue was seen for the first time.';
    case 'regression':
      return `A resolved issue came back${details.release ? ` in release ${details.release}` : ''}.`;
    case 'frequent':
      return `More than ${details.threshold} events in ${details.windowMinutes} minutes.`;
    case 'many_users':
      return `More than ${details.threshold} users affected${details.windowMinutes ? ` in ${details.windowMinutes} minutes` : ''}.`;
    case 'milestone':
      return `The issue reached ${details.milestone?.toLocaleString('en-US')} events.`;
    case 'every_occurrence':
      return 'The issue occurred.';
    case 'new_release':
      return `Release ${details.release} was seen for the first time.`;
  }
}

function withoutEmpty(payload: WebhookPayload): WebhookPayload {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    const required = key === 'kind' || key === 'title' || key === 'body' || key === 'url';
    if (required || (value !== undefined && value !== null && value !== '')) out[key] = value;
  }
  return out as unknown as WebhookPayload;
}
