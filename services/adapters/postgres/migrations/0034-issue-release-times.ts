// Schema version 35: when an issue's first and last releases were seen, so a batch that arrives
// out of order (another partition, a client that was offline) sets them by its events' times:
// the last release was compared with the last event of any kind, so a newer release
// after an event without one was never taken, and the first release was never replaced by an
// older one. Rows before this have none, and compare with first_seen and last_seen as before
// until their next release sets them; nothing is rewritten.
export default /* sql */ `
ALTER TABLE issues ADD COLUMN first_released_at timestamptz, ADD COLUMN last_released_at timestamptz;
`;
