// Schema version 15: whether an alert rule is enabled (a disabled one keeps its settings and
// fires nothing), and when it last produced an alert, for the dashboard's Alert rules pages.
// Set as its deliveries are added (PgAlertStore.enqueueDeliveries), so it outlives the
// deliveries themselves, which are deleted some time after they finish. Existing rules stay
// enabled and show "never" until they next fire.
export default /* sql */ `
ALTER TABLE alert_rules
  ADD COLUMN enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN last_fired_at timestamptz;
`;
