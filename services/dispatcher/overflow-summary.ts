// The overflow summary: alerts a channel's hourly limit held back (ERRATA_ALERT_CHANNEL_LIMIT_PER_HOUR,
// see alert-evaluator.ts) are not sent one by one; once the oldest has waited OVERFLOW_GATHER_MS,
// so that a burst is gathered whole, they go out as one `overflow_summary`, and a channel gets
// at most one summary per OVERFLOW_SUMMARY_INTERVAL_MS. Marking the held alerts and queueing the
// summary is one transaction, so two dispatchers never summarize the same alerts.
import { dashboardUrls, overflowSummary, type WebhookKind } from '../core/alerts/alert-payload.ts';
import { encodeWebhookBody } from '../core/alerts/webhook-body.ts';
import type { AlertStore } from '../core/ports/alert-store.ts';
import type { MetadataStore, Project } from '../core/ports/metadata-store.ts';

export const OVERFLOW_GATHER_MS = 5 * 60_000;
export const OVERFLOW_SUMMARY_INTERVAL_MS = 60 * 60_000;

export interface OverflowDeps {
  alerts: AlertStore;
  metadata: MetadataStore;
  baseUrl: string;
}

/** Summarizes every channel that is due; returns how many summaries it queued. */
export async function summarizeOverflow(deps: OverflowDeps, now: Date): Promise<number> {
  const due = await deps.alerts.channelsToSummarize(
    new Date(now.getTime() - OVERFLOW_GATHER_MS),
    new Date(now.getTime() - OVERFLOW_SUMMARY_INTERVAL_MS),
  );
  let queued = 0;
  for (const channelId of due) {
    const held = await deps.alerts.listHeld(channelId);
    const byProject = new Map<number, Map<WebhookKind, number>>();
    for (const delivery of held) {
      const kinds = byProject.get(delivery.projectId ?? 0) ?? new Map<WebhookKind, number>();
      kinds.set(delivery.kind, (kinds.get(delivery.kind) ?? 0) + 1);
      byProject.set(delivery.projectId ?? 0, kinds);
    }
    const projects = new Map<number, Project>();
    for (const id of byProject.keys()) {
      const project = await deps.metadata.getProject(id);
      if (project) projects.set(id, project);
    }
    const organizationId = [...projects.values()][0]?.organizationId;
    const channel = organizationId === undefined ? undefined : await deps.alerts.getChannel(organizationId, channelId);
    if (!channel) continue;
    const org = (await deps.metadata.listOrganizations()).find((o) => o.id === channel.organizationId)?.slug ?? '';
    const payload = overflowSummary({
      channelName: channel.name,
      url: dashboardUrls.channel(deps.baseUrl, org, channel.id),
      projects: [...byProject.entries()].map(([projectId, kinds]) => {
        const project = projects.get(projectId);
        return {
          projectName: project?.name ?? 'a deleted project',
          url: project ? dashboardUrls.project(deps.baseUrl, org, project.slug) : dashboardUrls.organization(deps.baseUrl, org),
          kinds,
        };
      }),
    });
    const summarized = await deps.alerts.summarizeHeld(
      held.map((d) => d.id),
      {
        channelId,
        ruleId: null,
        projectId: null,
        dedupKey: null,
        kind: 'overflow_summary',
        body: encodeWebhookBody(payload),
        status: 'pending',
      },
    );
    if (summarized) queued++;
  }
  return queued;
}
