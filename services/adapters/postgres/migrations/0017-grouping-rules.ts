// Schema version 18: each project's grouping rules (issue 19), the fingerprint rules and the
// stack-trace rules exactly as the user wrote them (Sentry's text syntax), so they read their
// own text back, comments and all. A project without a row has no rules. The dispatcher parses
// them when it loads them; rules apply to events processed after they are set.
export default /* sql */ `
CREATE TABLE project_grouping_rules (
  project_id integer PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  fingerprint_rules text NOT NULL DEFAULT '',
  stack_trace_rules text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
