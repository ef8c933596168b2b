// EventStore port: the normalized events, each tied to its issue. PGlite standalone,
// ClickHouse distributed. Writes are idempotent by (project, event id).
import type { NormalizedEvent } from '../event/event.ts';
import type { Level } from '../event/level.ts';

/** The columns every store keeps beside an event's payload, for lists and lookups. */
export interface EventRecord {
  projectId: number;
  eventId: string;
  issueId: number;
  /** Float seconds since the epoch. */
  timestamp: number;
  receivedAt: number;
  level: Level;
  title: string;
  culprit: string;
  platform: string;
  environment: string | null;
  release: string | null;
  traceId: string | null;
  userKey: string | null;
}

/** An event as read back. */
export interface StoredEvent extends EventRecord {
  payload: NormalizedEvent;
}

/** An event to write: its payload already serialized (once, wherever it was normalized). */
export interface NewEvent extends EventRecord {
  payloadJson: string;
}

export interface EventStore {
  insertEvents(events: NewEvent[]): Promise<void>;
  getEvent(projectId: number, eventId: string): Promise<StoredEvent | undefined>;
  latestEventForIssue(projectId: number, issueId: number): Promise<StoredEvent | undefined>;
  /** How many stored events an issue has (each event id once). */
  countEventsForIssue(projectId: number, issueId: number): Promise<number>;
  /** Deletes events older than the cutoff (float seconds); returns how many went. */
  deleteEventsBefore(cutoff: number): Promise<number>;
  /** Resolves when the store answers; used by /healthz. */
  ping(): Promise<void>;
}
