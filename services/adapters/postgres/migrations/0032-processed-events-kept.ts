// Schema version 33: deleting issues keeps their counted event ids, as tombstones that tell a
// redelivered event its issue is gone (record-occurrences.ts), so nothing looks them up by issue
// any more; the index 0026 made for that DELETE only cost each counted event a second insert.
export default /* sql */ `
DROP INDEX IF EXISTS processed_events_issue;
`;
