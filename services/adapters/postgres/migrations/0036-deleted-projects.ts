// Schema version 37: projects deleted, until their stored data is gone. Deleting a project deletes
// its row, and with it (ON DELETE CASCADE) its keys, tokens, issues, releases, rules and source map
// index at once. What has no foreign key to it (events, logs, counted event ids, files in the
// blob store) is deleted later by the dispatcher (dispatcher/project-purge.ts), once a batch that
// counted events just before the delete has stored them; the row here says which project that is.
export default /* sql */ `
CREATE TABLE deleted_projects (
  project_id integer PRIMARY KEY,
  organization_id integer NOT NULL REFERENCES organizations (id),
  slug text NOT NULL,
  deleted_at timestamptz NOT NULL
);
CREATE INDEX deleted_projects_at ON deleted_projects (deleted_at);
`;
