// AlertStore port: webhook channels, alert rules and the durable outbox of deliveries with
// their attempts. One SQL implementation (adapters/postgres/pg-alert-store.ts) over PGlite or
// Postgres, beside the MetadataStore in the same database.
import type { AlertChannel, AlertRule, DigestSchedule } from '../alerts/alert-rules.ts';
import type { WebhookKind } from '../alerts/alert-payload.ts';
import type { AttemptVerdict } from '../alerts/delivery-policy.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'held' | 'summarized';

export interface NewDelivery {
  channelId: number;
  ruleId: number | null;
  projectId: number | null;
  /** Unique per (rule, channel); null for deliveries that are never repeated (tests, digests). */
  dedupKey: string | null;
  /** The issue an issue's alert is about: deleting the issue withdraws it until it is sent. */
  issueId?: number | null;
  kind: WebhookKind;
  body: string;
  status: 'pending' | 'held';
}

/** How existingDeliveryKeys names a (rule, channel, dedup key). */
export function deliveryKey(ruleId: number, channelId: number, dedupKey: string): string {
  return `${ruleId}:${channelId}:${dedupKey}`;
}

export interface Delivery {
  id: number;
  channelId: number;
  ruleId: number | null;
  projectId: number | null;
  kind: WebhookKind;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface DeliveryAttempt {
  at: Date;
  statusCode: number | null;
  latencyMs: number;
  verdict: AttemptVerdict;
  error: string | null;
}

/** A delivery claimed for sending, with what sending needs from its channel. */
export interface DueDelivery extends Delivery {
  url: string;
  sealedSecret: string;
}

/** What a rule is made of, as created or replaced; when it last fired is the store's to record. */
export type RuleFields = Omit<AlertRule, 'id' | 'projectId' | 'createdAt' | 'lastFiredAt'>;

export interface AlertStore {
  createChannel(channel: { organizationId: number; name: string; url: string; sealedSecret: string }): Promise<AlertChannel>;
  listChannels(organizationId: number): Promise<AlertChannel[]>;
  getChannel(organizationId: number, id: number): Promise<AlertChannel | undefined>;
  updateChannel(
    organizationId: number,
    id: number,
    patch: { name?: string; url?: string; digest?: DigestSchedule | null; sealedSecret?: string },
  ): Promise<AlertChannel | undefined>;
  /** Deletes the channel with its deliveries; rules keep their other channels. */
  deleteChannel(organizationId: number, id: number): Promise<boolean>;
  sealedSecretOf(organizationId: number, id: number): Promise<string | undefined>;

  createRule(projectId: number, rule: RuleFields): Promise<AlertRule>;
  listRules(projectIds: number[]): Promise<AlertRule[]>;
  getRule(projectId: number, id: number): Promise<AlertRule | undefined>;
  updateRule(projectId: number, id: number, rule: RuleFields): Promise<AlertRule | undefined>;
  /** Deletes the rule and its alerts not sent yet (pending, held); what it sent stays in the history. */
  deleteRule(projectId: number, id: number): Promise<boolean>;

  /**
   * Adds deliveries, skipping any whose (rule, channel, dedup key) exists; returns the ones added.
   * A rule's alert added (pending or held, not a `test`) sets that rule's lastFiredAt.
   */
  enqueueDeliveries(deliveries: NewDelivery[]): Promise<Delivery[]>;
  /**
   * Adds a batch's alerts as enqueueDeliveries does, each pending or, past its channel's hourly
   * limit, held: counted and added with the channels locked, so dispatchers adding alerts to one
   * channel at once keep to the limit together (counted apart, N of them sent N times it).
   * An alert counts toward the limit in the order given; `since` starts the hour.
   */
  enqueueAlerts(alerts: Array<Omit<NewDelivery, 'status'>>, limit: { perHour: number; since: Date }): Promise<Delivery[]>;
  /**
   * Which of these (rule, channel, dedup key) already have a delivery, as `rule:channel:key`: an
   * alert of a window or an issue already added is no news, and must not count toward its
   * channel's hourly limit.
   */
  existingDeliveryKeys(keys: Array<{ ruleId: number; channelId: number; dedupKey: string }>): Promise<Set<string>>;
  /** Pending deliveries due by `now`, claimed for `claimMs` so no other dispatcher sends them meanwhile. */
  claimDueDeliveries(now: Date, limit: number, claimMs: number): Promise<DueDelivery[]>;
  /** Records an attempt and what follows: delivered or failed for good, or pending until `nextAttemptAt`. */
  recordAttempt(
    deliveryId: number,
    attempt: DeliveryAttempt,
    next: { status: 'delivered' | 'failed' } | { status: 'pending'; nextAttemptAt: Date },
  ): Promise<void>;
  /** Newest first, each with its attempts (oldest first). */
  listDeliveries(channelId: number, limit: number): Promise<Array<Delivery & { attemptLog: DeliveryAttempt[] }>>;

  /** Channels whose oldest held delivery is from `heldBefore` or earlier, and that got no overflow summary since `summarizedSince`. */
  channelsToSummarize(heldBefore: Date, summarizedSince: Date): Promise<AlertChannel[]>;
  /**
   * The channel's held deliveries, oldest first, without their bodies: a summary counts them by
   * project and kind, and an hour of an every-occurrence rule's held alerts, bodies and all, was
   * hundreds of megabytes in one read.
   */
  listHeld(channelId: number): Promise<Array<Pick<Delivery, 'id' | 'projectId' | 'kind'>>>;
  /**
   * Marks these held deliveries summarized and queues the summary, all or nothing, with the
   * channel locked; false (and no change) when another dispatcher got there first: one of them
   * is no longer held, or the channel had a summary since `summarizedSince`.
   */
  summarizeHeld(heldIds: number[], summary: NewDelivery, summarizedSince: Date): Promise<boolean>;
  /** Deletes deliveries finished (delivered, failed, summarized) before `cutoff`; returns how many. */
  deleteFinishedDeliveriesBefore(cutoff: Date): Promise<number>;
  /**
   * Channels with a digest schedule, with when their last digest was due (or the schedule was
   * set), and where the last digest's window ended (null before the first).
   */
  listDigestChannels(): Promise<Array<AlertChannel & { digestSentAt: Date | null; digestReportedUntil: Date | null }>>;
  /**
   * Records the digest due at `dueAt` as done, its window ending there, queueing `digest` unless
   * null; false if it already was done.
   */
  claimDigest(channelId: number, dueAt: Date, digest: NewDelivery | null): Promise<boolean>;
}
