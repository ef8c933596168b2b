// The overflow summary: alerts a channel's hourly limit held back (ERRATA_ALERT_CHANNEL_LIMIT_PER_HOUR,
// see alert-evaluator.ts) are not sent one by one; once the oldest has waited OVERFLOW_GATHER_MS,
// so that a burst is gathered whole, they go out as one `overflow_summary`, and a channel gets
// at most one summary per OVERFLOW_SUMMARY_INTERVAL_MS. Marking the held alerts and queueing the
// summary is one transaction, so two dispatchers never summarize the same alerts.
import { dashboardUrls, overflowSummary, type WebhookKind } from '../core/alerts/alert-payload.ts';
import { encodeWebhookBody } from '../core/alerts/webhook-body.ts';
import type { AlertChannel } from '../core/alerts/alert-rules.ts';
import type { AlertStore, NewDelivery } from '../core/ports/alert-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Logger } from '../runtime/logger.ts';

export const OVERFLOW_GATHER_MS = 5 * 60_000;
const OVERFLOW_SUMMARY_INTERVAL_MS = 60 * 60_000;

interface OverflowDeps {
  alerts: AlertStore;
  metadata: MetadataStore;
  baseUrl: string;
}

/** Summarizes every channel that is due; returns how many summaries it queued. */
export async function summarizeOverflow(deps: OverflowDeps, now: Date, logger: Logger): Promise<number> {
  const summarizedSince = new Date(now.getTime() - OVERFLOW_SUMMARY_INTERVAL_MS);
  const due = await deps.alerts.channelsToSummarize(new Date(now.getTime() - OVERFLOW_GATHER_MS), summarizedSince);
  let queued = 0;
  for (const channel of due) {
    // One channel's failure must not hold back the others' summaries.
    try {
      const org = (await deps.metadata.getOrganization(channel.organizationId))?.slug ?? '';
      if (await summarizeChannel(deps, channel, org, summarizedSince)) queued++;
    } catch (error) {
      logger.error({ err: error, channelId: channel.id }, 'overflow summary failed; will retry');
    }
  }
  return queued;
}

async function summarizeChannel(deps: OverflowDeps, channel: AlertChannel, org: string, summarizedSince: Date) {
  const held = await deps.alerts.listHeld(channel.id);
  // Another dispatcher summarized them between the two reads.
  if (held.length === 0) return false;
  const byProject = new Map<number, Map<WebhookKind, number>>();
  for (const delivery of held) {
    const kinds = byProject.get(delivery.projectId ?? 0) ?? new Map<WebhookKind, number>();
    kinds.set(delivery.kind, (kinds.get(delivery.kind) ?? 0) + 1);
    byProject.set(delivery.projectId ?? 0, kinds);
  }
  const sections = [];
  for (const [projectId, kinds] of byProject) {
    const project = await deps.metadata.getProject(projectId);
    sections.push({
      projectName: project?.name ?? 'a deleted project',
      url: project ? dashboardUrls.project(deps.baseUrl, org, project.slug) : dashboardUrls.organization(deps.baseUrl, org),
      kinds,
    });
  }
  const payload = overflowSummary({
    channelName: channel.name,
    url: dashboardUrls.channel(deps.baseUrl, org, channel.id),
    projects: sections,
  });
  const summary: NewDelivery = {
    channelId: channel.id,
    ruleId: null,
    projectId: null,
    dedupKey: null,
    kind: 'overflow_summary',
    body: encodeWebhookBody(payload),
    status: 'pending',
  };
  return deps.alerts.summarizeHeld(
    held.map((d) => d.id),
    summary,
    summarizedSince,
  );
}
