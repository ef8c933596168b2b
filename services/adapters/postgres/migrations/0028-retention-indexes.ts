// Schema version 29: what retention's hourly pass reads, by index. Finished alert deliveries by
// when they finished: without it each pass read the whole outbox, sent and pending alike. Source
// map files by the bundle that wrote them: the pass forgets assemblies no indexed file came
// from, and read every file of the installation to find them (the assemblies are few). IF NOT
// EXISTS: a development database may have run this migration's first form, which had only the first.
export default /* sql */ `
CREATE INDEX IF NOT EXISTS alert_deliveries_finished ON alert_deliveries (finished_at) WHERE status IN ('delivered', 'failed', 'summarized');
CREATE INDEX IF NOT EXISTS source_map_artifacts_bundle ON source_map_artifacts (project_id, bundle_checksum);
`;
