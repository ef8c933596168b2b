// Schema version 30: issues deleted, for a while. Deleting an issue deletes its events first,
// and a batch that counted an event in the issue just before may store that event after: it was
// left behind, reachable from no issue, until retention. Retention deletes the events of the
// issues deleted here a while ago (a batch has stored what it counted by then), and then forgets
// them.
export default /* sql */ `
CREATE TABLE deleted_issues (
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  issue_id integer NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, issue_id)
);
CREATE INDEX deleted_issues_at ON deleted_issues (deleted_at);
`;
