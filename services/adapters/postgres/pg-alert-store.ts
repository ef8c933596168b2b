// AlertStore over SQL (PGlite standalone, Postgres distributed): channels, rules, and the
// delivery outbox. Claiming uses FOR UPDATE SKIP LOCKED with a claim deadline, so several
// dispatchers share due deliveries and one that dies mid-send leaves them to the others.
import type { AlertChannel, AlertRule, DigestSchedule, Trigger } from '../../core/alerts/alert-rules.ts';
import type { WebhookKind } from '../../core/alerts/alert-payload.ts';
import type { AttemptVerdict } from '../../core/alerts/delivery-policy.ts';
import type { Level } from '../../core/event/level.ts';
import {
  deliveryKey,
  type AlertStore,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryStatus,
  type DueDelivery,
  type NewDelivery,
  type RuleFields,
} from '../../core/ports/alert-store.ts';
import { unnestRows, type SqlClient, type SqlExecutor } from './sql-client.ts';

interface ChannelRow {
  id: number;
  organization_id: number;
  name: string;
  type: 'webhook';
  url: string;
  digest_hour: number | null;
  digest_time_zone: string | null;
  created_at: Date;
}
const CHANNEL_COLUMNS = 'id, organization_id, name, type, url, digest_hour, digest_time_zone, created_at';

interface RuleRow {
  id: number;
  project_id: number;
  name: string;
  trigger: Trigger;
  channel_ids: number[];
  environment: string | null;
  min_level: Level | null;
  threshold: number | null;
  window_minutes: number | null;
  milestones: number[] | null;
  enabled: boolean;
  last_fired_at: Date | null;
  created_at: Date;
}

interface DeliveryRow {
  id: string | number;
  channel_id: number;
  rule_id: number | null;
  project_id: number | null;
  kind: WebhookKind;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  finished_at: Date | null;
}
const DELIVERY_COLUMNS =
  'id, channel_id, rule_id, project_id, kind, body, status, attempts, next_attempt_at, created_at, finished_at';

/**
 * A channel's hourly limit counts what it sent or will send. Tests are not alerts: a project's
 * admin testing a rule in a loop held every project's real alerts to an organization channel for
 * the hour (tests have a limit of their own: one waiting).
 */
const COUNTS_TOWARD_LIMIT = `status NOT IN ('held', 'summarized') AND kind <> 'test'`;

/** Whether channel `c` had an overflow summary created since the parameter $2. */
const SUMMARY_SINCE = `EXISTS (SELECT 1 FROM alert_deliveries s
  WHERE s.channel_id = c.id AND s.kind = 'overflow_summary' AND s.created_at >= $2)`;

function toChannel(row: ChannelRow): AlertChannel {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    type: row.type,
    url: row.url,
    digest: row.digest_hour === null ? null : { hour: row.digest_hour, timeZone: row.digest_time_zone ?? 'UTC' },
    createdAt: new Date(row.created_at),
  };
}

function toRule(row: RuleRow): AlertRule {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    trigger: row.trigger,
    channelIds: row.channel_ids,
    environment: row.environment,
    minLevel: row.min_level,
    threshold: row.threshold,
    windowMinutes: row.window_minutes,
    milestones: row.milestones,
    enabled: row.enabled,
    lastFiredAt: row.last_fired_at && new Date(row.last_fired_at),
    createdAt: new Date(row.created_at),
  };
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: Number(row.id),
    channelId: row.channel_id,
    ruleId: row.rule_id,
    projectId: row.project_id,
    kind: row.kind,
    body: row.body,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: new Date(row.next_attempt_at),
    createdAt: new Date(row.created_at),
    finishedAt: row.finished_at && new Date(row.finished_at),
  };
}

const ruleParams = (rule: RuleFields) => [
  rule.name,
  rule.trigger,
  rule.channelIds,
  rule.environment,
  rule.minLevel,
  rule.threshold,
  rule.windowMinutes,
  rule.milestones,
  rule.enabled,
];

export class PgAlertStore implements AlertStore {
  constructor(private readonly db: SqlClient) {}

  async createChannel(channel: { organizationId: number; name: string; url: string; sealedSecret: string }) {
    const result = await this.db.query<ChannelRow>(
      `INSERT INTO alert_channels (organization_id, name, url, sealed_secret) VALUES ($1, $2, $3, $4) RETURNING ${CHANNEL_COLUMNS}`,
      [channel.organizationId, channel.name, channel.url, channel.sealedSecret],
    );
    return toChannel(result.rows[0]!);
  }

  async listChannels(organizationId: number) {
    const result = await this.db.query<ChannelRow>(
      `SELECT ${CHANNEL_COLUMNS} FROM alert_channels WHERE organization_id = $1 ORDER BY id`,
      [organizationId],
    );
    return result.rows.map(toChannel);
  }

  async getChannel(organizationId: number, id: number) {
    const result = await this.db.query<ChannelRow>(
      `SELECT ${CHANNEL_COLUMNS} FROM alert_channels WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return result.rows[0] && toChannel(result.rows[0]);
  }

  async updateChannel(
    organizationId: number,
    id: number,
    patch: { name?: string; url?: string; digest?: DigestSchedule | null; sealedSecret?: string },
  ) {
    const digestGiven = patch.digest !== undefined;
    const result = await this.db.query<ChannelRow>(
      `UPDATE alert_channels SET
         name = COALESCE($3, name),
         url = COALESCE($4, url),
         sealed_secret = COALESCE($5, sealed_secret),
         digest_hour = CASE WHEN $6 THEN $7::integer ELSE digest_hour END,
         digest_time_zone = CASE WHEN $6 THEN $8::text ELSE digest_time_zone END,
         -- A schedule counts from when it is set: no digest for an hour that passed before. The
         -- same schedule saved again (with a rename) keeps its place, or it skipped a digest due.
         digest_sent_at = CASE
           WHEN $6 AND (digest_hour IS DISTINCT FROM $7::integer OR digest_time_zone IS DISTINCT FROM $8::text) THEN now()
           ELSE digest_sent_at END,
         -- Turned off, or on again: the next digest is a first one (the day before it), not the
         -- days the digest was off.
         digest_reported_until = CASE
           WHEN $6 AND ($7::integer IS NULL OR digest_hour IS NULL) THEN NULL
           ELSE digest_reported_until END
       WHERE organization_id = $1 AND id = $2
       RETURNING ${CHANNEL_COLUMNS}`,
      [
        organizationId,
        id,
        patch.name ?? null,
        patch.url ?? null,
        patch.sealedSecret ?? null,
        digestGiven,
        patch.digest?.hour ?? null,
        patch.digest?.timeZone ?? null,
      ],
    );
    return result.rows[0] && toChannel(result.rows[0]);
  }

  async deleteChannel(organizationId: number, id: number) {
    return this.db.transaction(async (tx) => {
      const deleted = await tx.query('DELETE FROM alert_channels WHERE organization_id = $1 AND id = $2', [organizationId, id]);
      if (deleted.affectedRows === 0) return false;
      // The rules that name it (every rule of every organization was rewritten).
      await tx.query('UPDATE alert_rules SET channel_ids = array_remove(channel_ids, $1) WHERE $1 = ANY(channel_ids)', [id]);
      return true;
    });
  }

  async sealedSecretOf(organizationId: number, id: number) {
    const result = await this.db.query<{ sealed_secret: string }>(
      'SELECT sealed_secret FROM alert_channels WHERE organization_id = $1 AND id = $2',
      [organizationId, id],
    );
    return result.rows[0]?.sealed_secret;
  }

  async createRule(projectId: number, rule: RuleFields) {
    const result = await this.db.query<RuleRow>(
      `INSERT INTO alert_rules (project_id, name, trigger, channel_ids, environment, min_level, threshold, window_minutes, milestones, enabled)
       VALUES ($1, $2, $3, $4::integer[], $5, $6, $7, $8, $9::integer[], $10) RETURNING *`,
      [projectId, ...ruleParams(rule)],
    );
    return toRule(result.rows[0]!);
  }

  async listRules(projectIds: number[]) {
    if (projectIds.length === 0) return [];
    const result = await this.db.query<RuleRow>('SELECT * FROM alert_rules WHERE project_id = ANY($1::integer[]) ORDER BY id', [
      projectIds,
    ]);
    return result.rows.map(toRule);
  }

  async getRule(projectId: number, id: number) {
    const result = await this.db.query<RuleRow>('SELECT * FROM alert_rules WHERE project_id = $1 AND id = $2', [projectId, id]);
    return result.rows[0] && toRule(result.rows[0]);
  }

  async updateRule(projectId: number, id: number, rule: RuleFields) {
    const result = await this.db.query<RuleRow>(
      `UPDATE alert_rules SET name = $3, trigger = $4, channel_ids = $5::integer[], environment = $6, min_level = $7,
         threshold = $8, window_minutes = $9, milestones = $10::integer[], enabled = $11
       WHERE project_id = $1 AND id = $2 RETURNING *`,
      [projectId, id, ...ruleParams(rule)],
    );
    return result.rows[0] && toRule(result.rows[0]);
  }

  /** Its alerts not sent yet (pending, held) go with it: a rule deleted to stop a flood stops it. */
  async deleteRule(projectId: number, id: number) {
    return this.db.transaction(async (tx) => {
      const deleted = await tx.query('DELETE FROM alert_rules WHERE project_id = $1 AND id = $2', [projectId, id]);
      if (deleted.affectedRows === 0) return false;
      // Not one being sent now (claimed): its attempt is recorded when it ends.
      await tx.query(
        `DELETE FROM alert_deliveries WHERE rule_id = $1 AND status IN ('pending', 'held')
           AND (claimed_until IS NULL OR claimed_until <= now())`,
        [id],
      );
      return true;
    });
  }

  async enqueueDeliveries(deliveries: NewDelivery[]) {
    return this.enqueueWith(this.db, deliveries);
  }

  async enqueueAlerts(alerts: Array<Omit<NewDelivery, 'status'>>, limit: { perHour: number; since: Date }) {
    if (alerts.length === 0) return [];
    return this.db.transaction(async (tx) => {
      // The channels' rows, locked in id order: a second dispatcher adding to one of them waits
      // here, then counts what this one added. NO KEY UPDATE, which the foreign key checks of
      // other deliveries' inserts (tests, digests, summaries: KEY SHARE) pass.
      const channelIds = [...new Set(alerts.map((alert) => alert.channelId))].sort((a, b) => a - b);
      const locked = await tx.query<{ id: number }>(
        'SELECT id FROM alert_channels WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE',
        [channelIds],
      );
      // Only what will be added takes a place: not an alert another dispatcher added meanwhile
      // (the same batch, delivered twice in a rebalance), nor one to a channel deleted meanwhile.
      const live = new Set(locked.rows.map((row) => row.id));
      const existing = await this.existingKeysWith(
        tx,
        alerts.flatMap((a) =>
          a.ruleId !== null && a.dedupKey !== null ? [{ ...a, ruleId: a.ruleId, dedupKey: a.dedupKey }] : [],
        ),
      );
      const fresh = alerts.filter((alert) => {
        if (!live.has(alert.channelId)) return false;
        if (alert.ruleId === null || alert.dedupKey === null) return true;
        const key = deliveryKey(alert.ruleId, alert.channelId, alert.dedupKey);
        if (existing.has(key)) return false;
        existing.add(key); // and once within the batch
        return true;
      });
      const counted = await tx.query<{ channel_id: number; n: string | number }>(
        `SELECT channel_id, count(*) AS n FROM alert_deliveries
         WHERE channel_id = ANY($1::int[]) AND created_at >= $2 AND ${COUNTS_TOWARD_LIMIT}
         GROUP BY channel_id`,
        [channelIds, limit.since],
      );
      const sent = new Map(counted.rows.map((row) => [row.channel_id, Number(row.n)]));
      const deliveries = fresh.map((alert): NewDelivery => {
        const before = sent.get(alert.channelId) ?? 0;
        if (before >= limit.perHour) return { ...alert, status: 'held' };
        sent.set(alert.channelId, before + 1);
        return { ...alert, status: 'pending' };
      });
      return this.enqueueWith(tx, deliveries);
    });
  }

  async existingDeliveryKeys(keys: Array<{ ruleId: number; channelId: number; dedupKey: string }>) {
    return this.existingKeysWith(this.db, keys);
  }

  private async existingKeysWith(db: SqlExecutor, keys: Array<{ ruleId: number; channelId: number; dedupKey: string }>) {
    if (keys.length === 0) return new Set<string>();
    const wanted = unnestRows(
      keys.map((k) => [k.ruleId, k.channelId, k.dedupKey]),
      ['integer', 'integer', 'text'],
    );
    const result = await db.query<{ rule_id: number; channel_id: number; dedup_key: string }>(
      `SELECT d.rule_id, d.channel_id, d.dedup_key FROM alert_deliveries d
       JOIN ${wanted.sql} AS k (rule_id, channel_id, dedup_key)
         ON d.rule_id = k.rule_id AND d.channel_id = k.channel_id AND d.dedup_key = k.dedup_key`,
      wanted.params,
    );
    return new Set(result.rows.map((row) => deliveryKey(row.rule_id, row.channel_id, row.dedup_key)));
  }

  private async enqueueWith(db: SqlExecutor, deliveries: NewDelivery[]) {
    if (deliveries.length === 0) return [];
    // In (rule, channel, dedup key) order, as every dispatcher inserts them: two batches each
    // holding one alert's dedup key and waiting for the other's deadlocked.
    const ordered = [...deliveries].sort(
      (a, b) =>
        (a.ruleId ?? 0) - (b.ruleId ?? 0) ||
        a.channelId - b.channelId ||
        ((a.dedupKey ?? '') < (b.dedupKey ?? '') ? -1 : (a.dedupKey ?? '') > (b.dedupKey ?? '') ? 1 : 0),
    );
    // As arrays, eight parameters whatever the count: a batch's alerts can be tens of thousands of
    // rows (every_occurrence rules times channels), past the 65,535 parameters one VALUES list of
    // eight per row may bind; past it the statement was refused as a protocol error, which reads
    // as an outage, so the batch was retried without end and the events partition stopped.
    const values = unnestRows(
      ordered.map((d) => [d.channelId, d.ruleId, d.projectId, d.dedupKey, d.issueId ?? null, d.kind, d.body, d.status]),
      ['integer', 'integer', 'integer', 'text', 'integer', 'text', 'text', 'text'],
    );
    // Channels deleted meanwhile are skipped rather than failing the batch. So is a repeat of an
    // alert's dedup key, and a test to a channel with a test not yet tried (the partial unique
    // index of migration 0031, which holds against concurrent requests too): a channel sends one
    // delivery at a time, and tests asked for by the thousand put every real alert of the channel
    // behind them (a test is tried once, never retried: delivery-worker.ts). The rules whose
    // alerts were added (a test is no alert) record that they fired, in the same statement.
    const result = await db.query<DeliveryRow>(
      `WITH added AS (
         INSERT INTO alert_deliveries (channel_id, rule_id, project_id, dedup_key, issue_id, kind, body, status)
         SELECT v.* FROM ${values.sql} AS v (channel_id, rule_id, project_id, dedup_key, issue_id, kind, body, status)
         WHERE EXISTS (SELECT 1 FROM alert_channels c WHERE c.id = v.channel_id)
         ON CONFLICT DO NOTHING
         RETURNING ${DELIVERY_COLUMNS}
       ), fired AS (
         UPDATE alert_rules SET last_fired_at = now()
         WHERE id IN (SELECT rule_id FROM added WHERE rule_id IS NOT NULL AND kind <> 'test')
       )
       SELECT * FROM added ORDER BY id`,
      values.params,
    );
    return result.rows.map(toDelivery);
  }

  async claimDueDeliveries(now: Date, limit: number, claimMs: number) {
    const result = await this.db.query<DeliveryRow & { url: string; sealed_secret: string }>(
      // One delivery per channel at a time, the channel's earliest due, and none for a channel
      // with one in flight (claimed, not finished): a receiver that never answers holds one
      // sender for its 10 s, not a whole claim of them, and the other channels' alerts go on.
      // (FOR UPDATE cannot go with DISTINCT ON: the rows it picked are locked by id after.)
      // Then the organizations take turns: each one's earliest channel before any one's second,
      // so an organization with many channels of old deliveries (receivers that never answer,
      // tests queued by the hundred) cannot take every sender from the others' alerts.
      `WITH next_per_channel AS (
         SELECT DISTINCT ON (d.channel_id) d.id, d.channel_id, d.next_attempt_at FROM alert_deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)
           -- Not of a deleted project: one being sent at its delete, or added just after by a batch
           -- counted just before, links to pages that are gone (the purge deletes them).
           AND (d.project_id IS NULL OR EXISTS (SELECT 1 FROM projects p WHERE p.id = d.project_id))
           AND NOT EXISTS (
             SELECT 1 FROM alert_deliveries busy
             WHERE busy.channel_id = d.channel_id AND busy.status = 'pending' AND busy.claimed_until > $1
           )
         ORDER BY d.channel_id, d.next_attempt_at, d.id
       ), in_turn AS (
         SELECT n.id, n.next_attempt_at,
           row_number() OVER (PARTITION BY c.organization_id ORDER BY n.next_attempt_at, n.id) AS turn
         FROM next_per_channel n JOIN alert_channels c ON c.id = n.channel_id
       ), due AS (
         -- The conditions again: a row another dispatcher claimed and committed meanwhile is
         -- read anew once locked, and must then fail them rather than be claimed twice.
         SELECT id FROM alert_deliveries
         WHERE id IN (SELECT id FROM in_turn ORDER BY turn, next_attempt_at, id LIMIT $2)
           AND status = 'pending' AND (claimed_until IS NULL OR claimed_until <= $1)
         FOR UPDATE SKIP LOCKED
       )
       UPDATE alert_deliveries d SET claimed_until = $1::timestamptz + make_interval(secs => $3::float8 / 1000)
       FROM due, alert_channels c
       WHERE d.id = due.id AND c.id = d.channel_id
       RETURNING ${DELIVERY_COLUMNS.replace(/\w+/g, 'd.$&')}, c.url, c.sealed_secret`,
      [now, limit, claimMs],
    );
    return result.rows.map((row): DueDelivery => ({ ...toDelivery(row), url: row.url, sealedSecret: row.sealed_secret }));
  }

  async recordAttempt(
    deliveryId: number,
    attempt: DeliveryAttempt,
    next: { status: 'delivered' | 'failed' } | { status: 'pending'; nextAttemptAt: Date },
  ) {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO alert_delivery_attempts (delivery_id, at, status_code, latency_ms, verdict, error) VALUES ($1, $2, $3, $4, $5, $6)`,
        [deliveryId, attempt.at, attempt.statusCode, attempt.latencyMs, attempt.verdict, attempt.error],
      );
      await tx.query(
        `UPDATE alert_deliveries SET attempts = attempts + 1, status = $2, claimed_until = NULL,
           next_attempt_at = COALESCE($3, next_attempt_at), finished_at = CASE WHEN $2 = 'pending' THEN NULL ELSE $4::timestamptz END
         WHERE id = $1`,
        [deliveryId, next.status, next.status === 'pending' ? next.nextAttemptAt : null, attempt.at],
      );
    });
  }

  async listDeliveries(channelId: number, limit: number) {
    const deliveries = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE channel_id = $1 ORDER BY id DESC LIMIT $2`,
      [channelId, limit],
    );
    const ids = deliveries.rows.map((row) => Number(row.id));
    const attempts = await this.db.query<{
      delivery_id: string | number;
      at: Date;
      status_code: number | null;
      latency_ms: number;
      verdict: AttemptVerdict;
      error: string | null;
    }>('SELECT * FROM alert_delivery_attempts WHERE delivery_id = ANY($1::bigint[]) ORDER BY id', [ids]);
    const byDelivery = new Map<number, DeliveryAttempt[]>();
    for (const row of attempts.rows) {
      const list = byDelivery.get(Number(row.delivery_id)) ?? [];
      list.push({
        at: new Date(row.at),
        statusCode: row.status_code,
        latencyMs: row.latency_ms,
        verdict: row.verdict,
        error: row.error,
      });
      byDelivery.set(Number(row.delivery_id), list);
    }
    return deliveries.rows.map((row) => ({ ...toDelivery(row), attemptLog: byDelivery.get(Number(row.id)) ?? [] }));
  }

  async channelsToSummarize(heldBefore: Date, summarizedSince: Date) {
    const result = await this.db.query<ChannelRow>(
      `SELECT ${CHANNEL_COLUMNS} FROM alert_channels c
       WHERE EXISTS (SELECT 1 FROM alert_deliveries h WHERE h.channel_id = c.id AND h.status = 'held' AND h.created_at <= $1)
         AND NOT ${SUMMARY_SINCE}
       ORDER BY id`,
      [heldBefore, summarizedSince],
    );
    return result.rows.map(toChannel);
  }

  async listHeld(channelId: number) {
    const result = await this.db.query<Pick<DeliveryRow, 'id' | 'project_id' | 'kind'>>(
      `SELECT id, project_id, kind FROM alert_deliveries WHERE channel_id = $1 AND status = 'held' ORDER BY id`,
      [channelId],
    );
    return result.rows.map((row) => ({ id: Number(row.id), projectId: row.project_id, kind: row.kind }));
  }

  async summarizeHeld(heldIds: number[], summary: NewDelivery, summarizedSince: Date) {
    if (heldIds.length === 0) throw new Error('summarizeHeld needs the held deliveries it summarizes');
    try {
      return await this.db.transaction(async (tx) => {
        // The channel's row lock orders dispatchers summarizing the same channel: the second
        // sees the first's summary and stops.
        await tx.query('SELECT 1 FROM alert_channels WHERE id = $1 FOR UPDATE', [summary.channelId]);
        const recent = await tx.query(`SELECT 1 FROM alert_channels c WHERE c.id = $1 AND ${SUMMARY_SINCE}`, [
          summary.channelId,
          summarizedSince,
        ]);
        if (recent.rows.length > 0) throw new SummarizedElsewhere();
        const marked = await tx.query(
          `UPDATE alert_deliveries SET status = 'summarized', finished_at = now() WHERE id = ANY($1::bigint[]) AND status = 'held'`,
          [heldIds],
        );
        if (marked.affectedRows !== heldIds.length) throw new SummarizedElsewhere();
        await this.enqueueWith(tx, [summary]);
        return true;
      });
    } catch (error) {
      if (error instanceof SummarizedElsewhere) return false;
      throw error;
    }
  }

  async deleteFinishedDeliveriesBefore(cutoff: Date) {
    // Except a lifetime many_users alert's (key many_users:<issue>, no window): once per issue,
    // and its row is what says it was sent (evaluate-triggers.ts). One per issue and rule.
    const deleted = await this.db.query(
      `DELETE FROM alert_deliveries WHERE status IN ('delivered', 'failed', 'summarized') AND finished_at < $1
         AND (dedup_key IS NULL OR dedup_key !~ '^many_users:[0-9]+$')`,
      [cutoff],
    );
    return deleted.affectedRows;
  }

  async listDigestChannels() {
    const result = await this.db.query<ChannelRow & { digest_sent_at: Date | null; digest_reported_until: Date | null }>(
      `SELECT ${CHANNEL_COLUMNS}, digest_sent_at, digest_reported_until FROM alert_channels
       WHERE digest_hour IS NOT NULL ORDER BY id`,
    );
    return result.rows.map((row) => ({
      ...toChannel(row),
      digestSentAt: row.digest_sent_at && new Date(row.digest_sent_at),
      digestReportedUntil: row.digest_reported_until && new Date(row.digest_reported_until),
    }));
  }

  async claimDigest(channelId: number, dueAt: Date, digest: NewDelivery | null) {
    return this.db.transaction(async (tx) => {
      const claimed = await tx.query(
        `UPDATE alert_channels SET digest_sent_at = $2, digest_reported_until = $2
         WHERE id = $1 AND (digest_sent_at IS NULL OR digest_sent_at < $2)`,
        [channelId, dueAt],
      );
      if (claimed.affectedRows === 0) return false;
      if (digest) await this.enqueueWith(tx, [digest]);
      return true;
    });
  }
}

/** Rolls back a summary whose held deliveries another dispatcher took first. */
class SummarizedElsewhere extends Error {}
