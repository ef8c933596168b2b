// Schema version 21: the payloads of deleted events still to be overwritten in their segment
// files (payload-erasures.ts). Deleting an issue adds its events' references here in the
// statement that deletes the rows, so the erasure is owed durably from the moment the deletion
// commits: the backend thread, the only one that writes the files, works the list off, and a
// crash before it did leaves the list for the next start. Empty where payloads stay in the rows.
export default /* sql */ `
CREATE TABLE payload_erasures (
  reference text PRIMARY KEY
);
`;
