// Schema version 27: the counted event ids by issue. Deleting issues deletes their counted ids
// (a redelivered event of a deleted issue is then counted afresh, in a new issue), and without
// this index that DELETE read every id counted in the project's retention, under the locks the
// event pipeline takes for those issues' hashes: past the statement timeout in a busy project,
// stalling every batch that met one of them at each try.
export default /* sql */ `
CREATE INDEX processed_events_issue ON processed_events (issue_id);
`;
