// Schema version 6: the overflow summary job looks for held deliveries every minute; this keeps
// that lookup off the rest of the outbox.
export default /* sql */ `
CREATE INDEX alert_deliveries_held ON alert_deliveries (channel_id, created_at) WHERE status = 'held';
`;
