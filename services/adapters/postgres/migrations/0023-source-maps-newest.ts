// Schema version 24: a project's stored source files by upload time, newest first, so the Source
// maps page, `errata listsourcemaps` and the read API read the newest few without sorting every
// file the project ever uploaded.
export default /* sql */ `
CREATE INDEX source_map_artifacts_project_uploaded ON source_map_artifacts (project_id, uploaded_at DESC, debug_id, type);
`;
