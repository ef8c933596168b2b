/**
 * ERRATA_EVENT_RETENTION_DAYS is at least 1: no event seen within a day has been pruned. An
 * event missing from the store that recent is still on its way (the issue is recorded first) or
 * held up by an outage, not deleted.
 */
export const MIN_RETENTION_MS = 86_400_000;
