// Schema version 22: each payload segment's committed end, the end of the last bytes a committed
// row refers to there, raised in the transaction that stores the rows. At a start, what a segment
// holds past it (written before a crash, its batch never committed) is cut off
// (uncommitted-payloads.ts). Null for segments no batch has stored rows in since this version.
export default /* sql */ `
ALTER TABLE payload_segments ADD COLUMN committed_end bigint;
`;
