// Schema version 32: a channel holds at most one test not yet tried, by a unique index rather
// than a check in the insert. The check read the table as it was before the statement, so two
// Send test requests at once on Postgres, or two tests to one channel in one batch, each added
// theirs. Tests queued twice before this version are settled first: the earliest is kept (it
// may be in flight), the others were never tried and are dropped.
export default /* sql */ `
DELETE FROM alert_deliveries d
WHERE d.kind = 'test' AND d.status = 'pending' AND d.attempts = 0
  AND EXISTS (
    SELECT 1 FROM alert_deliveries e
    WHERE e.channel_id = d.channel_id AND e.kind = 'test' AND e.status = 'pending' AND e.attempts = 0 AND e.id < d.id
  );
CREATE UNIQUE INDEX alert_deliveries_one_untried_test ON alert_deliveries (channel_id)
  WHERE kind = 'test' AND status = 'pending' AND attempts = 0;
`;
