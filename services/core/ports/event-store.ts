// EventStore port: the normalized events, each tied to its issue. PGlite standalone,
// ClickHouse distributed. Writes are idempotent by (project, event id).
import type { NormalizedEvent } from '../event/event.ts';
import type { Level } from '../event/level.ts';

/** The columns every store keeps beside an event's payload, for lists and lookups. */
interface EventRecord {
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

/**
 * How many of an issue's newest events latestEventPerUser looks through for users: enough for a
 * handful of recent ones, while a loud issue's whole history is never sorted for them.
 */
export const USER_SCAN_EVENTS = 1_000;

/** An event as read back. */
export interface StoredEvent extends EventRecord {
  payload: NormalizedEvent;
}

/** An event to write, its payload already in the form the store keeps. */
export interface NewEvent extends EventRecord {
  /** The normalized event's JSON (serialized once, where it was normalized) as the store's `encodePayload` returned it. */
  encodedPayload: string;
}

/** How many release names IssueEventStats lists at most: SDKs can send any number of releases. */
export const STATS_RELEASES = 20;

/** What the events of one issue since some moment add up to (check_resolution). */
export interface IssueEventStats {
  count: number;
  /** Float seconds; null when count is 0. */
  firstSeen: number | null;
  lastSeen: number | null;
  /** Distinct non-null releases of those events, sorted (byte order), the first STATS_RELEASES. */
  releases: string[];
  /** How many distinct non-null releases there are in all. */
  releaseCount: number;
  /** Distinct users (non-null user keys) of those events. */
  users: number;
}

export interface DailyCount {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  count: number;
}

export interface HourlyCount {
  issueId: number;
  /** The hour's start, whole seconds since the epoch (UTC hours). */
  hour: number;
  count: number;
}

/** The events either side of one event of its issue, by (timestamp, received at, event id): older and newer navigation. */
export interface EventNeighbours {
  older: string | null;
  newer: string | null;
}

export interface EventStore {
  /**
   * An event's JSON in the form this store keeps it, made as each event of a batch is prepared:
   * the batch then holds that form until it is stored, not the JSON. The embedded store's
   * (deflated) is a quarter of the size, so less of each batch outlives the young generation and
   * the collector promotes and marks less (issue 20; docs/benchmarks.md).
   */
  encodePayload(payloadJson: string): string;
  /**
   * Stores the rows; an event stored before keeps its first row. `unused`: payloads
   * `encodePayload` made for events that are not stored after all (a second copy in one batch, a
   * project gone), each made for one event only. A store that keeps payloads apart from their
   * rows lets those go, and the copy made for an event it finds stored before.
   */
  insertEvents(events: NewEvent[], unused?: string[]): Promise<void>;
  getEvent(projectId: number, eventId: string): Promise<StoredEvent | undefined>;
  /** The newest event of the issue by timestamp; with environment, the newest sent from that environment. */
  latestEventForIssue(projectId: number, issueId: number, environment?: string): Promise<StoredEvent | undefined>;
  /** The ids of the events just older and just newer than this one in its issue; both null when the event is not stored. */
  eventNeighbours(projectId: number, issueId: number, eventId: string): Promise<EventNeighbours>;
  /** Up to `limit` events of these projects with this trace id (lowercase hex), oldest first by timestamp (the trace view). */
  eventsForTrace(projectIds: number[], traceId: string, limit: number): Promise<StoredEvent[]>;
  /**
   * For up to `limit` distinct non-null user keys among the issue's newest USER_SCAN_EVENTS
   * events, the newest event of each, newest first.
   */
  latestEventPerUser(projectId: number, issueId: number, limit: number): Promise<StoredEvent[]>;
  /** How many stored events an issue has (each event id once). */
  countEventsForIssue(projectId: number, issueId: number): Promise<number>;
  /** The issue's events with timestamp >= since (float seconds), each event id once. */
  issueEventStats(projectId: number, issueId: number, since: number): Promise<IssueEventStats>;
  /** The issue's events per UTC day with timestamp >= since; days without events left out, oldest first. */
  dailyEventCounts(projectId: number, issueId: number, since: number): Promise<DailyCount[]>;
  /** Events of these issues per UTC hour with timestamp >= since; hours without events left out, oldest first (sparklines, charts). */
  hourlyEventCounts(projectId: number, issueIds: number[], since: number): Promise<HourlyCount[]>;
  /** Events per issue with since <= timestamp < until, for the given projects; issues without events left out. */
  countEventsByIssue(projectIds: number[], since: number, until: number): Promise<Map<number, number>>;
  /** Of these issues of one project, those with any stored event (retention's sweep of deleted issues asks before deleting). */
  issuesWithEvents(projectId: number, issueIds: number[]): Promise<number[]>;
  /** Deletes every event of these issues of one project (the issues were deleted), in one go. */
  deleteEventsForIssues(projectId: number, issueIds: number[]): Promise<void>;
  /** Deletes every event of the project (it was deleted); may take a while, and may be repeated. */
  deleteEventsOfProject(projectId: number): Promise<void>;
  /**
   * Deletes events older than the cutoff (float seconds), or than the start of its UTC hour (the
   * SQL stores) or day (ClickHouse drops day partitions); returns how many went. An error after
   * the rows went (a payload file that would not go) carries their number as `pruned`.
   */
  deleteEventsBefore(cutoff: number): Promise<number>;
  /** Resolves when the store answers; used by /healthz. */
  ping(): Promise<void>;
}
