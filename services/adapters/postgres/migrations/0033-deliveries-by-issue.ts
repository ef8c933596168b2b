// Schema version 34: a delivery names the issue its alert is about, so deleting the issue
// withdraws its alerts not yet sent (a receiver down for hours was otherwise sent, on its return,
// alerts that link to a page that answers 404). Rows before this name none and are sent as before.
export default /* sql */ `
ALTER TABLE alert_deliveries ADD COLUMN issue_id integer;
CREATE INDEX alert_deliveries_unsent_by_issue ON alert_deliveries (project_id, issue_id)
  WHERE issue_id IS NOT NULL AND status IN ('pending', 'held');
`;
