// Schema version 23: a project's releases by first seen, newest first, so the Issues and Releases
// pages (and a marker release's neighbours) read the newest few without scanning every release
// a project's SDKs ever sent.
export default /* sql */ `
CREATE INDEX releases_project_first_seen ON releases (project_id, first_seen DESC, version);
`;
