// Schema version 20: the standalone server's event payloads may live in files beside the database
// (payload-segments.ts), the row holding a reference. Each segment's newest event time, raised in
// the transaction that stores rows referring to it, tells retention when no row can refer to it
// any more. Empty where payloads stay in the rows (Postgres, and rows written before this).
export default /* sql */ `
CREATE TABLE payload_segments (
  name text PRIMARY KEY,
  newest_event timestamptz NOT NULL
);
`;
