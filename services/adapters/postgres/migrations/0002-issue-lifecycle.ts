// Schema version 2: the issue lifecycle. A resolve stamps a resolution marker; a snooze has an
// end; a regression is remembered (when, and in which release) for whats_new; every action and
// every change the events cause is written to the activity log.
export default /* sql */ `
ALTER TABLE issues ADD COLUMN resolution jsonb;
ALTER TABLE issues ADD COLUMN snooze_until timestamptz;
ALTER TABLE issues ADD COLUMN regressed_at timestamptz;
ALTER TABLE issues ADD COLUMN regression_release text;
CREATE INDEX issues_snoozed ON issues (snooze_until) WHERE status = 'snoozed';
CREATE INDEX issues_project_first_seen ON issues (project_id, first_seen);
CREATE INDEX issues_project_regressed ON issues (project_id, regressed_at) WHERE regressed_at IS NOT NULL;

CREATE TABLE issue_activity (
  id serial PRIMARY KEY,
  issue_id integer NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  at timestamptz NOT NULL DEFAULT now(),
  -- The token name for triage actions; "errata" for changes the events or the clock made.
  actor text NOT NULL,
  kind text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX issue_activity_issue ON issue_activity (issue_id, id);
`;
