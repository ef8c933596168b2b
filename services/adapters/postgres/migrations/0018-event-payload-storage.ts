// Schema version 19: event payloads are stored out of line without Postgres's own compression.
// They arrive already deflated and base64-encoded (pg-event-store.ts), so the pglz pass Postgres
// tries on every value over ~2 KB never shrinks them and only costs CPU: with EXTERNAL the
// insert of a typical 3 KB payload took 74 instead of 87 microseconds of CPU in PGlite
// (issue 20; docs/benchmarks.md). Only rows written afterwards are affected; older ones read
// back the same way.
export default /* sql */ `
ALTER TABLE events ALTER COLUMN payload_deflated SET STORAGE EXTERNAL;
`;
