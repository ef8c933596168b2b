// Scheduled digests: a channel with a digest schedule gets, once a day at its hour in its time
// zone, one `digest` covering the time since the last one ended (a day; 23 or 25 hours across a
// daylight saving change; more or less after its schedule changed, up to a week after days
// without a dispatcher), the first one the day before its due time: per project with something to report, its event, issue, new-issue
// and regression counts and its top five issues by events. A day with nothing to report in any
// project sends nothing. Claiming the day and queueing the digest is one transaction, so two
// dispatchers never send the same day twice.
import { dashboardUrls, digestAlert, MAX_TOP_ISSUES, type DigestSection } from '../core/alerts/alert-payload.ts';
import type { AlertChannel } from '../core/alerts/alert-rules.ts';
import { digestWindow, lastDigestDue } from '../core/alerts/digest-schedule.ts';
import { encodeWebhookBody } from '../core/alerts/webhook-body.ts';
import type { AlertStore } from '../core/ports/alert-store.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { MetadataStore, Organization, Project } from '../core/ports/metadata-store.ts';
import { plural } from '../core/plural.ts';
import type { Logger } from '../runtime/logger.ts';

export interface DigestDeps {
  alerts: AlertStore;
  metadata: MetadataStore;
  events: EventStore;
  baseUrl: string;
}

/** How many new issues and regressions a digest counts at most per project ("100+" beyond). */
const COUNT_CAP = 100;

/** Sends the digests that are due; returns how many it queued. */
export async function sendDueDigests(deps: DigestDeps, now: Date, logger: Logger): Promise<number> {
  let queued = 0;
  for (const channel of await deps.alerts.listDigestChannels()) {
    const dueAt = lastDigestDue(now, channel.digest!);
    if (channel.digestSentAt && channel.digestSentAt >= dueAt) continue;
    // One channel's failure must not hold back the others' digests.
    try {
      const organization = await deps.metadata.getOrganization(channel.organizationId);
      if (!organization) continue;
      if (await sendDigest(deps, organization, channel, dueAt)) queued++;
    } catch (error) {
      logger.error({ err: error, channelId: channel.id }, 'digest failed; will retry');
    }
  }
  return queued;
}

type DigestChannel = AlertChannel & { digestReportedUntil: Date | null };

async function sendDigest(deps: DigestDeps, organization: Organization, channel: DigestChannel, dueAt: Date) {
  const body = await digestBody(deps, organization, channel, dueAt);
  const delivery =
    body === undefined
      ? null
      : {
          channelId: channel.id,
          ruleId: null,
          projectId: null,
          dedupKey: null,
          kind: 'digest' as const,
          body,
          status: 'pending' as const,
        };
  return (await deps.alerts.claimDigest(channel.id, dueAt, delivery)) && delivery !== null;
}

async function digestBody(deps: DigestDeps, organization: Organization, channel: DigestChannel, dueAt: Date) {
  const { since, until } = digestWindow(dueAt, channel.digest!, channel.digestReportedUntil);
  const sections: DigestSection[] = [];
  let events = 0;
  for (const project of await deps.metadata.listProjects(organization.id)) {
    const section = await projectSection(deps, organization, project, since, until);
    if (!section) continue;
    sections.push(section.section);
    events += section.events;
  }
  if (sections.length === 0) return undefined;
  const projects = `${sections.length} project${sections.length === 1 ? '' : 's'}`;
  const headline = `Daily digest for ${organization.name}: ${events} event${events === 1 ? '' : 's'} in ${projects}`;
  return encodeWebhookBody(
    digestAlert({
      headline,
      body: `From ${since.toISOString()} to ${until.toISOString()} (${channel.digest!.hour}:00 ${channel.digest!.timeZone}).`,
      url: dashboardUrls.organization(deps.baseUrl, organization.slug),
      sections,
    }),
  );
}

async function projectSection(
  deps: DigestDeps,
  organization: Organization,
  project: Project,
  since: Date,
  until: Date,
): Promise<{ section: DigestSection; events: number } | undefined> {
  const perIssue = await deps.events.countEventsByIssue([project.id], since.getTime() / 1000, until.getTime() / 1000);
  const events = [...perIssue.values()].reduce((a, b) => a + b, 0);
  const inWindow = (date: Date | null) => date !== null && date < until;
  const newIssues = (
    await deps.metadata.listIssues({ projectId: project.id, status: 'all', firstSeenSince: since, limit: COUNT_CAP })
  ).items.filter((issue) => inWindow(issue.firstSeen));
  const regressions = (
    await deps.metadata.listIssues({ projectId: project.id, status: 'all', regressedSince: since, limit: COUNT_CAP })
  ).items.filter((issue) => inWindow(issue.regressedAt));
  if (events === 0 && newIssues.length === 0 && regressions.length === 0) return undefined;
  const capped = (n: number) => (n >= COUNT_CAP ? `${COUNT_CAP}+` : String(n));
  const countsLine = [
    `${plural(events, 'event')} in ${plural(perIssue.size, 'issue')}`,
    `${capped(newIssues.length)} new`,
    `${capped(regressions.length)} regressed`,
  ].join(' · ');
  const top = [...perIssue.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_TOP_ISSUES);
  const topIssues = [];
  for (const [issueId] of top) {
    const issue = await deps.metadata.getIssue(issueId);
    if (issue) {
      topIssues.push({
        shortId: issue.shortId,
        title: issue.title,
        url: dashboardUrls.issue(deps.baseUrl, organization.slug, issue.shortId),
      });
    }
  }
  return { section: { projectName: project.name, countsLine, topIssues: topIssues.length > 0 ? topIssues : null }, events };
}
