// Schema version 29: finished alert deliveries by when they finished. Retention deletes those
// finished before its cutoff every hour, and without this index each pass read the whole outbox,
// sent and pending alike, to find them.
export default /* sql */ `
CREATE INDEX alert_deliveries_finished ON alert_deliveries (finished_at) WHERE status IN ('delivered', 'failed', 'summarized');
`;
