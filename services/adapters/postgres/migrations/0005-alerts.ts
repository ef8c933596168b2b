// Schema version 5: alerts. Webhook channels (per organization) with a sealed signing secret,
// rules (per project), and the durable outbox of deliveries with every attempt. Processed
// events also keep the facts alerts follow from, so a redelivered event replays them.
export default /* sql */ `
ALTER TABLE processed_events
  ADD COLUMN is_new_issue boolean NOT NULL DEFAULT false,
  ADD COLUMN is_regression boolean NOT NULL DEFAULT false,
  ADD COLUMN is_new_release boolean NOT NULL DEFAULT false,
  ADD COLUMN count_before integer NOT NULL DEFAULT 0,
  ADD COLUMN count_after integer NOT NULL DEFAULT 0;

CREATE TABLE alert_channels (
  id serial PRIMARY KEY,
  organization_id integer NOT NULL REFERENCES organizations (id),
  name text NOT NULL,
  type text NOT NULL DEFAULT 'webhook',
  url text NOT NULL,
  -- The signing secret, encrypted (AES-256-GCM) with the instance's secrets key: signing needs
  -- the secret itself, so it cannot be only hashed like tokens.
  sealed_secret text NOT NULL,
  digest_hour integer,
  digest_time_zone text,
  digest_sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_channels_organization ON alert_channels (organization_id);

CREATE TABLE alert_rules (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  trigger text NOT NULL,
  channel_ids integer[] NOT NULL,
  environment text,
  min_level text,
  threshold integer,
  window_minutes integer,
  milestones integer[],
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_rules_project ON alert_rules (project_id);

CREATE TABLE alert_deliveries (
  id bigserial PRIMARY KEY,
  channel_id integer NOT NULL REFERENCES alert_channels (id) ON DELETE CASCADE,
  rule_id integer,
  project_id integer,
  -- One delivery per (rule, channel, key): what makes alerts exactly-once across redeliveries.
  dedup_key text,
  kind text NOT NULL,
  -- The encoded body; it is signed anew at every attempt, with the channel's current secret.
  body text NOT NULL,
  -- pending, delivered, failed; held (over the channel's rate limit), summarized (sent as part of an overflow summary)
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE UNIQUE INDEX alert_deliveries_dedup ON alert_deliveries (rule_id, channel_id, dedup_key) WHERE dedup_key IS NOT NULL;
CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_deliveries_channel ON alert_deliveries (channel_id, created_at);

CREATE TABLE alert_delivery_attempts (
  id bigserial PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES alert_deliveries (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  verdict text NOT NULL,
  error text
);
CREATE INDEX alert_delivery_attempts_delivery ON alert_delivery_attempts (delivery_id);
`;
