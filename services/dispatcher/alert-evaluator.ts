// After each stored event batch: which alert rules it sets off (core/alerts/evaluate-triggers.ts),
// but none for an issue ignored or snoozed; the count checks of `frequent` and `many_users`; the
// payloads; and the deliveries in the outbox. Deliveries are unique per (rule, channel, dedup
// key), so a batch evaluated again after a crash or a retry adds nothing twice. A channel over
// its hourly limit gets its alerts held back, for the overflow summary.
import {
  dashboardUrls,
  issueAlert,
  newReleaseAlert,
  triggerSentence,
  type WebhookPayload,
} from '../core/alerts/alert-payload.ts';
import { evaluateTriggers, type AlertCandidate, type AlertFacts } from '../core/alerts/evaluate-triggers.ts';
import { encodeWebhookBody } from '../core/alerts/webhook-body.ts';
import type { Occurrence, OccurrenceResult } from '../core/issues/occurrence.ts';
import { deliveryKey, type AlertStore, type NewDelivery } from '../core/ports/alert-store.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { MetadataStore, Project } from '../core/ports/metadata-store.ts';
import type { Metrics } from '../runtime/metrics.ts';

interface AlertEvaluatorDeps {
  alerts: AlertStore;
  metadata: MetadataStore;
  events: EventStore;
  baseUrl: string;
  channelLimitPerHour: number;
  metrics: Metrics;
  now?: () => number;
}

export class AlertEvaluator {
  private readonly now: () => number;
  private organizations = new Map<number, string>();

  constructor(private readonly deps: AlertEvaluatorDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Evaluates the rules of the batch's projects; returns the deliveries it added. */
  async afterBatch(batch: Array<{ occurrence: Occurrence; result: OccurrenceResult; receivedAt: number }>): Promise<number> {
    const projectIds = [...new Set(batch.map((b) => b.result.projectId))];
    const rules = await this.deps.alerts.listRules(projectIds);
    if (rules.length === 0) return 0;
    const candidates = await this.withoutMutedIssues(evaluateTriggers(rules, batch.map(toFacts)));
    // An alert already added (its window's, its issue's) is left out before anything is counted:
    // every batch of a busy window made the same `frequent` alert again, which took a place in
    // its channel's hourly limit, and held back the real news after it.
    const existing = await this.deps.alerts.existingDeliveryKeys(
      candidates.flatMap((c) => c.rule.channelIds.map((channelId) => ({ ruleId: c.rule.id, channelId, dedupKey: c.dedupKey }))),
    );
    const alerts: Array<Omit<NewDelivery, 'status'>> = [];
    const projects = new Map<number, Project | undefined>();
    for (const candidate of candidates) {
      const channelIds = candidate.rule.channelIds.filter(
        (channelId) => !existing.has(deliveryKey(candidate.rule.id, channelId, candidate.dedupKey)),
      );
      if (channelIds.length === 0) continue;
      if (candidate.check && !(await this.passesCheck(candidate))) continue;
      const { projectId } = candidate.facts;
      if (!projects.has(projectId)) projects.set(projectId, await this.deps.metadata.getProject(projectId));
      const project = projects.get(projectId);
      if (!project) continue;
      const body = encodeWebhookBody(await this.payloadOf(candidate, project));
      for (const channelId of channelIds) {
        alerts.push({
          channelId,
          ruleId: candidate.rule.id,
          projectId,
          dedupKey: candidate.dedupKey,
          // A new release is the project's news, not its first event's issue's.
          issueId: candidate.kind === 'new_release' ? null : candidate.facts.issueId,
          kind: candidate.kind,
          body,
        });
      }
    }
    // Held past the channel's hourly limit, counted by the store with the channels locked.
    // Counted as added: a batch evaluated again adds (and counts) nothing twice.
    const added = await this.deps.alerts.enqueueAlerts(alerts, {
      perHour: this.deps.channelLimitPerHour,
      since: new Date(this.now() - 3_600_000),
    });
    const held = added.filter((delivery) => delivery.status === 'held').length;
    if (held > 0) this.deps.metrics.webhookHeld.inc(held);
    return added.length;
  }

  /**
   * Leaves out the alerts of issues ignored, or snoozed, when the batch is evaluated: a person
   * ignores a noisy issue to stop its alerts (the dashboard and the tools promise as much). A new
   * release is the project's news, not the issue's: it stays.
   */
  private async withoutMutedIssues(candidates: AlertCandidate[]): Promise<AlertCandidate[]> {
    const ofIssues = candidates.filter((candidate) => candidate.kind !== 'new_release');
    if (ofIssues.length === 0) return candidates;
    const muted = await this.deps.metadata.mutedIssues(
      [...new Set(ofIssues.map((candidate) => candidate.facts.issueId))],
      new Date(this.now()),
    );
    return candidates.filter((candidate) => candidate.kind === 'new_release' || !muted.has(candidate.facts.issueId));
  }

  private async passesCheck(candidate: AlertCandidate): Promise<boolean> {
    const { measure, threshold, windowMinutes } = candidate.check!;
    const { projectId, issueId } = candidate.facts;
    if (measure === 'users' && windowMinutes === null) {
      return ((await this.deps.metadata.getIssue(issueId))?.userCount ?? 0) > threshold;
    }
    // Counted back from when the event was received, not from now: a batch processed late (a
    // backlog, a restart) counted a window that had moved past its burst, and never alerted;
    // and a batch evaluated again gets the same verdict.
    const since = candidate.facts.receivedAt - windowMinutes! * 60;
    const stats = await this.deps.events.issueEventStats(projectId, issueId, since);
    return (measure === 'events' ? stats.count : stats.users) > threshold;
  }

  private async payloadOf(candidate: AlertCandidate, project: Project): Promise<WebhookPayload> {
    const { rule, facts } = candidate;
    const org = await this.organizationSlug(project.organizationId);
    if (candidate.kind === 'new_release') {
      return newReleaseAlert({
        release: facts.release!,
        projectName: project.name,
        ruleName: rule.name,
        url: dashboardUrls.release(this.deps.baseUrl, org, project.slug, facts.release!),
      });
    }
    return issueAlert({
      kind: candidate.kind,
      ruleName: rule.name,
      projectName: project.name,
      url: dashboardUrls.issue(this.deps.baseUrl, org, facts.shortId),
      issueShortId: facts.shortId,
      title: facts.title,
      level: facts.level,
      environment: facts.environment,
      culprit: facts.culprit,
      timesSeen: facts.countAfter,
      body: triggerSentence(candidate.kind, {
        threshold: rule.threshold,
        windowMinutes: rule.windowMinutes,
        milestone: candidate.milestone,
        release: facts.release,
      }),
    });
  }

  /** Read once by id and kept: an organization's slug never changes, and a fleet may have thousands. */
  private async organizationSlug(id: number): Promise<string> {
    let slug = this.organizations.get(id);
    if (slug === undefined) {
      slug = (await this.deps.metadata.getOrganization(id))?.slug;
      if (slug === undefined) return ''; // no such organization (none is ever deleted): nothing kept
      this.organizations.set(id, slug);
    }
    return slug;
  }
}

function toFacts({
  occurrence,
  result,
  receivedAt,
}: {
  occurrence: Occurrence;
  result: OccurrenceResult;
  receivedAt: number;
}): AlertFacts {
  return {
    projectId: result.projectId,
    eventId: result.eventId,
    issueId: result.issueId,
    shortId: result.shortId,
    title: occurrence.title,
    culprit: occurrence.culprit,
    level: occurrence.level,
    environment: occurrence.environment,
    release: occurrence.release,
    receivedAt,
    isNewIssue: result.isNewIssue,
    isRegression: result.isRegression,
    isNewRelease: result.isNewRelease,
    countBefore: result.countBefore,
    countAfter: result.countAfter,
  };
}
