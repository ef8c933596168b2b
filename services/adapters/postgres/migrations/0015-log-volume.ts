// Schema version 16: per-minute record counts of the logs table, for the Logs page's volume
// histogram. Counting a window's rows on every page view read each row of it (a day at a
// million records took most of a second on PGlite); the histogram of a search by level or
// environment alone now reads at most a row per minute, level and environment. PgLogStore keeps
// the counts in the statement that inserts the records and in retention's delete. Environment
// is '' for records sent without one. Existing records are counted here once.
//
// Also an index for the trace view, which finds a trace's events across projects.
export default /* sql */ `
CREATE TABLE log_volume (
  project_id integer NOT NULL,
  minute timestamptz NOT NULL,
  level text NOT NULL,
  environment text NOT NULL,
  records integer NOT NULL,
  PRIMARY KEY (project_id, minute, level, environment)
);
INSERT INTO log_volume (project_id, minute, level, environment, records)
SELECT project_id, to_timestamp(floor(extract(epoch FROM timestamp) / 60) * 60), level, coalesce(environment, ''), count(*)
FROM logs GROUP BY 1, 2, 3, 4;
CREATE INDEX events_trace ON events (project_id, trace_id) WHERE trace_id IS NOT NULL;
`;
