// Schema version 25: how many stored events each issue has per UTC hour, kept as events are
// inserted and deleted. Counting an issue's events over a window (whats_new's
// day and its 24 windows before, the alert digest, the project overview, the charts) read every
// event of the window: with a million events over 30 days, 0.41-0.94 s of the standalone
// backend's thread per whats_new call, during which it stored nothing (docs/benchmarks.md,
// 2026-12-05 (third)). Whole hours now come from here; only a window's partial first and last
// hours read events, by issue through events_issue_time.
//
// The event store keeps it: a batch adds the events it really inserted (event-hours.ts,
// HourTally: one statement a batch, 5-10 µs per event in bench:events-insert, where a trigger
// on every INSERT cost 14); deleting an issue's events deletes its rows here, and retention
// deletes whole hours of events and their rows. (A trigger taking away what any DELETE removed
// made retention's DELETE five times as slow: 8 µs a row against 1.6.) `hour` is whole hours
// since the epoch.
export default /* sql */ `
CREATE TABLE issue_event_hours (
  project_id integer NOT NULL,
  hour integer NOT NULL,
  issue_id integer NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (project_id, hour, issue_id)
);
INSERT INTO issue_event_hours (project_id, hour, issue_id, count)
  SELECT project_id, floor(extract(epoch FROM timestamp) / 3600)::int, issue_id, count(*) FROM events GROUP BY 1, 2, 3;
`;
