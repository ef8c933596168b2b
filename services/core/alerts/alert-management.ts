// Managing webhook channels and alert rules: the operations behind the management API
// (services/mcp/api/alert-api.ts) and the CLI (runtime/admin/operations.ts), on an organization
// and project the caller has already been allowed to touch. JSON views are built here too, so
// both surfaces answer alike.
import type { z } from 'zod';
import { ConflictError, NotFoundError, UserInputError } from '../errors.ts';
import type { AlertStore, Delivery, DeliveryAttempt, RuleFields } from '../ports/alert-store.ts';
import type { MetadataStore, Organization, Project } from '../ports/metadata-store.ts';
import { channelTest, dashboardUrls, ruleTest } from './alert-payload.ts';
import {
  channelInput,
  channelPatch,
  ruleInput,
  rulePatch,
  type AlertChannel,
  type AlertRule,
  type DigestSchedule,
} from './alert-rules.ts';
import { privateReceiverProblem } from './receiver-address.ts';
import type { SecretBox } from './secret-box.ts';
import { encodeWebhookBody } from './webhook-body.ts';
import { mintSigningSecret } from './webhook-signature.ts';

export interface AlertManagementDeps {
  alerts: AlertStore;
  secrets: SecretBox;
  metadata: MetadataStore;
  baseUrl: string;
  /** ERRATA_WEBHOOK_ALLOW_HOSTS: receiver hosts that may be private, loopback or link-local. */
  webhookAllowHosts: readonly string[];
}

/** How many deliveries a listing returns at most. */
export const MAX_LISTED_DELIVERIES = 200;

export const channelJson = (channel: AlertChannel) => ({
  id: channel.id,
  name: channel.name,
  type: channel.type,
  url: channel.url,
  digest: channel.digest,
  createdAt: channel.createdAt.toISOString(),
});

/**
 * A channel as a project-scoped token sees it, to name it in its rules: its receiver's host
 * rather than its URL. A URL can be a credential (a Slack incoming webhook's path is one), and the
 * channel serves every project of the organization, not only the token's.
 */
export const channelJsonForProject = (channel: AlertChannel) => {
  const { url, ...shown } = channelJson(channel);
  return { ...shown, host: new URL(url).host };
};

export const ruleJson = (rule: AlertRule, project: Project) => ({
  id: rule.id,
  project: project.slug,
  name: rule.name,
  trigger: rule.trigger,
  channelIds: rule.channelIds,
  environment: rule.environment,
  minLevel: rule.minLevel,
  threshold: rule.threshold,
  windowMinutes: rule.windowMinutes,
  milestones: rule.milestones,
  enabled: rule.enabled,
  lastFiredAt: rule.lastFiredAt?.toISOString() ?? null,
  createdAt: rule.createdAt.toISOString(),
});

const attemptJson = (attempt: DeliveryAttempt) => ({
  at: attempt.at.toISOString(),
  statusCode: attempt.statusCode,
  latencyMs: attempt.latencyMs,
  verdict: attempt.verdict,
  error: attempt.error,
});

const deliveryJson = (delivery: Delivery & { attemptLog?: DeliveryAttempt[] }) => ({
  id: delivery.id,
  kind: delivery.kind,
  status: delivery.status,
  ruleId: delivery.ruleId,
  attempts: delivery.attempts,
  nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
  createdAt: delivery.createdAt.toISOString(),
  finishedAt: delivery.finishedAt?.toISOString() ?? null,
  // The request body as sent: JSON text, event-derived fields in it untrusted.
  body: delivery.body,
  ...(delivery.attemptLog ? { attemptLog: delivery.attemptLog.map(attemptJson) } : {}),
});

/** Parses `input` with `schema`, or says which field was wrong and how. */
export function parseInput<T extends z.ZodTypeAny>(schema: T, input: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new UserInputError(`invalid ${what}: ${field}${issue.message}`);
}

/**
 * A URL whose host is a private IP literal is refused now rather than at every send; a name is
 * left to the sender, as what it resolves to may change.
 */
function checkReceiver(deps: AlertManagementDeps, url: string | undefined, what: string): void {
  const problem = url === undefined ? undefined : privateReceiverProblem(url, deps.webhookAllowHosts);
  if (problem) throw new UserInputError(`invalid ${what}: url: ${problem}`);
}

export async function createChannel(deps: AlertManagementDeps, organization: Organization, input: unknown) {
  const fields = parseInput(channelInput, input, 'channel; send {"name", "type": "webhook", "url": "https://..."}');
  checkReceiver(deps, fields.url, 'channel');
  const secret = mintSigningSecret();
  const channel = await deps.alerts.createChannel({
    organizationId: organization.id,
    name: fields.name,
    url: fields.url,
    sealedSecret: deps.secrets.seal(secret),
  });
  return { channel: channelJson(channel), signingSecret: secret };
}

export async function channelOf(deps: AlertManagementDeps, organization: Organization, id: number): Promise<AlertChannel> {
  const channel = await deps.alerts.getChannel(organization.id, id);
  if (!channel) throw new NotFoundError(`no alert channel ${id} in organization ${organization.slug}: list them for their ids`);
  return channel;
}

export async function updateChannel(deps: AlertManagementDeps, organization: Organization, id: number, input: unknown) {
  const patch = parseInput(
    channelPatch,
    input,
    'channel change; send any of {"name", "url", "digest": {"hour", "timeZone" (kept when left out)} | null}',
  );
  checkReceiver(deps, patch.url, 'channel change');
  const { digest, ...rest } = patch;
  const schedule: DigestSchedule | null | undefined = digest && {
    hour: digest.hour,
    timeZone: digest.timeZone ?? (await channelOf(deps, organization, id)).digest?.timeZone ?? 'UTC',
  };
  const channel = await deps.alerts.updateChannel(organization.id, id, {
    ...rest,
    ...(schedule !== undefined && { digest: schedule }),
  });
  if (!channel) await channelOf(deps, organization, id);
  return { channel: channelJson(channel!) };
}

export async function deleteChannel(deps: AlertManagementDeps, organization: Organization, id: number) {
  if (!(await deps.alerts.deleteChannel(organization.id, id))) await channelOf(deps, organization, id);
  return { deleted: id };
}

/** Reveal: the channel's signing secret, opened from its sealed form. */
export async function revealChannelSecret(deps: AlertManagementDeps, organization: Organization, id: number) {
  const sealed = await deps.alerts.sealedSecretOf(organization.id, id);
  if (sealed === undefined) await channelOf(deps, organization, id);
  return { signingSecret: deps.secrets.open(sealed!) };
}

/** Rotate: a new secret, in force for every attempt from now on (queued deliveries included). */
export async function rotateChannelSecret(deps: AlertManagementDeps, organization: Organization, id: number) {
  const secret = mintSigningSecret();
  const channel = await deps.alerts.updateChannel(organization.id, id, { sealedSecret: deps.secrets.seal(secret) });
  if (!channel) await channelOf(deps, organization, id);
  return { channel: channelJson(channel!), signingSecret: secret };
}

/**
 * Send test: queues a `test` delivery, sent by the dispatcher like any other. A ConflictError
 * when the channel has a test waiting to be sent already: one at a time, so that tests asked for
 * by the thousand cannot hold the channel's real alerts behind them.
 */
export async function testChannel(deps: AlertManagementDeps, organization: Organization, id: number) {
  const channel = await channelOf(deps, organization, id);
  const [delivery] = await deps.alerts.enqueueDeliveries([
    {
      channelId: channel.id,
      ruleId: null,
      projectId: null,
      dedupKey: null,
      kind: 'test',
      body: encodeWebhookBody(channelTest(channel.name, deps.baseUrl)),
      status: 'pending',
    },
  ]);
  if (!delivery) {
    throw new ConflictError(
      `a test to channel ${channel.id} is already waiting to be sent, and a channel gets one at a time: its deliveries list shows it`,
    );
  }
  return { delivery: deliveryJson(delivery) };
}

export async function listChannelDeliveries(deps: AlertManagementDeps, organization: Organization, id: number, limit = 50) {
  await channelOf(deps, organization, id);
  const deliveries = await deps.alerts.listDeliveries(id, Math.min(Math.max(1, limit), MAX_LISTED_DELIVERIES));
  return { deliveries: deliveries.map(deliveryJson) };
}

/** The channels a rule names must be the organization's own. */
async function checkChannels(deps: AlertManagementDeps, organization: Organization, channelIds: number[]) {
  const known = new Set((await deps.alerts.listChannels(organization.id)).map((c) => c.id));
  const unknown = channelIds.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new UserInputError(
      `channelIds: no alert channel ${unknown.join(', ')} in organization ${organization.slug}; create one with POST /api/v1/organizations/${organization.slug}/alert-channels`,
    );
  }
}

function ruleFieldsOf(input: z.infer<typeof ruleInput>): RuleFields {
  return {
    name: input.name,
    trigger: input.trigger,
    channelIds: [...new Set(input.channelIds)],
    environment: input.environment ?? null,
    minLevel: input.minLevel ?? null,
    threshold: input.threshold ?? null,
    windowMinutes: input.windowMinutes ?? null,
    milestones: input.milestones ? [...new Set(input.milestones)].sort((a, b) => a - b) : null,
    enabled: input.enabled ?? true,
  };
}

const RULE_SHAPE =
  'rule; send {"name", "trigger", "channelIds": [..], "environment"?, "minLevel"?, "threshold"?, "windowMinutes"?, "milestones"?, "enabled"?}';

export async function createRule(deps: AlertManagementDeps, organization: Organization, project: Project, input: unknown) {
  const fields = ruleFieldsOf(parseInput(ruleInput, input, RULE_SHAPE));
  await checkChannels(deps, organization, fields.channelIds);
  return { rule: ruleJson(await deps.alerts.createRule(project.id, fields), project) };
}

export async function ruleOf(deps: AlertManagementDeps, project: Project, id: number): Promise<AlertRule> {
  const rule = await deps.alerts.getRule(project.id, id);
  if (!rule) throw new NotFoundError(`no alert rule ${id} in project ${project.slug}: list them for their ids`);
  return rule;
}

/** A change merges into the rule, and the result must make a whole rule. */
export async function updateRule(
  deps: AlertManagementDeps,
  organization: Organization,
  project: Project,
  id: number,
  input: unknown,
) {
  const patch = parseInput(rulePatch, input, RULE_SHAPE);
  const current = await ruleOf(deps, project, id);
  const { id: _id, projectId: _project, createdAt: _created, lastFiredAt: _fired, ...currentFields } = current;
  if (patch.trigger !== undefined && patch.trigger !== current.trigger) {
    // A new trigger starts from its own settings: those of the old one do not carry over.
    Object.assign(currentFields, { threshold: null, windowMinutes: null, milestones: null });
  }
  const fields = ruleFieldsOf(parseInput(ruleInput, { ...currentFields, ...patch }, RULE_SHAPE));
  await checkChannels(deps, organization, fields.channelIds);
  const updated = await deps.alerts.updateRule(project.id, id, fields);
  if (!updated) await ruleOf(deps, project, id);
  return { rule: ruleJson(updated!, project) };
}

export async function deleteRule(deps: AlertManagementDeps, project: Project, id: number) {
  if (!(await deps.alerts.deleteRule(project.id, id))) await ruleOf(deps, project, id);
  return { deleted: id };
}

/**
 * A rule's Send test: an issue alert for the sample issue TEST-1, to each of its channels but
 * those with a test waiting to be sent already (`alreadyWaiting`; a ConflictError when that is
 * all of them). Its `url` is the rule's page, the subject of a test (there is no issue TEST-1 to
 * open).
 */
export async function testRule(deps: AlertManagementDeps, organization: Organization, project: Project, id: number) {
  const rule = await ruleOf(deps, project, id);
  if (rule.channelIds.length === 0) {
    throw new UserInputError(`rule ${id} has no channels left (they were deleted); give it channelIds first`);
  }
  const body = encodeWebhookBody(
    ruleTest({
      ruleName: rule.name,
      projectName: project.name,
      url: dashboardUrls.rule(deps.baseUrl, organization.slug, project.slug, rule.id),
    }),
  );
  const deliveries = await deps.alerts.enqueueDeliveries(
    rule.channelIds.map((channelId) => ({
      channelId,
      ruleId: rule.id,
      projectId: project.id,
      dedupKey: null,
      kind: 'test' as const,
      body,
      status: 'pending' as const,
    })),
  );
  if (deliveries.length === 0) {
    throw new ConflictError(
      `a test to each of rule ${id}'s channels is already waiting to be sent, and a channel gets one at a time: their deliveries list them`,
    );
  }
  const queued = new Set(deliveries.map((delivery) => delivery.channelId));
  return {
    deliveries: deliveries.map(deliveryJson),
    alreadyWaiting: rule.channelIds.filter((channelId) => !queued.has(channelId)),
  };
}

export async function listRules(deps: AlertManagementDeps, project: Project) {
  return { rules: (await deps.alerts.listRules([project.id])).map((rule) => ruleJson(rule, project)) };
}
