// IssueStore port, a slice of the MetadataStore: issues and the occurrences that make and
// update them (grouping by hash, counts, regressions), their activity log, snoozes, the
// releases events came with, and the event ids already counted. The dispatcher records
// occurrences, wakes snoozes and prunes counted ids; the mcp role lists, reads and triages
// issues. One SQL implementation (adapters/postgres/pg-issue-store.ts).
import type { Level } from '../event/level.ts';
import type { ActivityKind, IssueState, ResolutionMarker } from '../issues/lifecycle.ts';
import type { OccurrenceBatch, OccurrenceResult } from '../issues/occurrence.ts';
import type { Page } from './page.ts';

export const ISSUE_STATUSES = ['unresolved', 'resolved', 'ignored', 'snoozed'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

export interface IssueMetadata {
  type?: string;
  value?: string;
  filename?: string;
  function?: string;
}

/**
 * Environments one issue keeps at most. SDKs may send any number of names, and every new one
 * would otherwise grow (and rewrite) the issue's row; an issue seen only in later ones is not
 * found by an environment filter.
 */
export const MAX_ISSUE_ENVIRONMENTS = 100;

export interface Issue {
  id: number;
  projectId: number;
  projectSlug: string;
  shortId: string;
  title: string;
  culprit: string;
  level: Level;
  status: IssueStatus;
  type: 'error' | 'default';
  metadata: IssueMetadata;
  firstSeen: Date;
  lastSeen: Date;
  count: number;
  userCount: number;
  /** The environments it was seen in, the first MAX_ISSUE_ENVIRONMENTS in the order they came. */
  environments: string[];
  firstRelease: string | null;
  lastRelease: string | null;
  /** Stamped by the last resolve; kept through a regression, cleared by any other action. */
  resolution: ResolutionMarker | null;
  snoozeUntil: Date | null;
  /** The last time an event regressed the issue, and that event's release. */
  regressedAt: Date | null;
  regressionRelease: string | null;
}

export interface IssueActivity {
  id: number;
  issueId: number;
  at: Date;
  actor: string;
  kind: ActivityKind;
  details: Record<string, unknown>;
}

/** A triage action to apply to some issues, with the activity entry it leaves. */
export interface IssueChange {
  state: IssueState;
  at: Date;
  actor: string;
  kind: ActivityKind;
  details: Record<string, unknown>;
}

/** The orders a list of issues comes in, each largest or newest first. */
export const ISSUE_SORTS = ['lastSeen', 'firstSeen', 'events', 'users'] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

/** Which issues: everything a list, a count and a bulk action select by. */
export interface IssueQuery {
  projectId: number;
  status?: IssueStatus | 'all';
  level?: Level;
  /** Case-insensitive text searched in the title and culprit. */
  text?: string;
  /** Issues first seen at or after this moment (whats_new). */
  firstSeenSince?: Date;
  /** Issues that regressed at or after this moment (whats_new). */
  regressedSince?: Date;
  /** Issues whose first event came with this release. */
  firstRelease?: string;
  /** Issues seen in this environment. */
  environment?: string;
  /** Issues to leave out (a search's `!key:value` terms): any of these statuses, levels, first
   *  releases, or seen in any of these environments. An issue without a first release stays in. */
  exclude?: {
    statuses?: IssueStatus[];
    levels?: Level[];
    environments?: string[];
    firstReleases?: string[];
  };
  /** Issues whose last regression came with this release. */
  regressionRelease?: string;
  /** Issues whose resolution marker names this release (resolved in it; kept through a regression). */
  resolvedInRelease?: string;
  /** Issues last seen at or after this moment (the dashboard's time window). */
  lastSeenSince?: Date;
}

/** A page of issues in one order; a cursor continues only the order it came from. */
export interface IssueListQuery extends IssueQuery {
  /**
   * Default lastSeen. Ties go by id, newest first, so paging never skips or repeats an issue
   * that does not change meanwhile. Events move an issue up by lastSeen, events and users, so
   * one that gets an event between pages moves past the cursor and is not on a later page. By
   * firstSeen none is skipped: an event dated earlier only moves an issue down, past the cursor,
   * where it is met twice (bulk-triage.ts pages so, and keeps it once).
   */
  sort?: IssueSort;
  limit: number;
  cursor?: string;
}

export interface Release {
  projectId: number;
  version: string;
  firstSeen: Date;
  lastSeen: Date;
}

/** What the releases list shows beside a release, from what the issue store keeps. */
export interface ReleaseCounts {
  /** Events counted with the release (the issues' tag summaries: every event recorded since they were kept). */
  events: number;
  /** Issues first seen with the release. */
  newIssues: number;
  /** Issues whose last regression came with the release. */
  regressions: number;
}

/** What similarity compares and a list of similar issues names: a narrow read of many issues. */
export type IssueOutline = Pick<Issue, 'id' | 'shortId' | 'title' | 'status' | 'count'> & {
  metadata: Pick<IssueMetadata, 'type' | 'filename' | 'function'>;
};

/** One tag key of an issue's summary, counted over every event recorded with it. */
export interface TagSummary {
  key: string;
  /** The issue's events that carried the key. */
  total: number;
  /** The most common values, most common first. */
  values: { value: string; count: number }[];
}

/** An issue deleted a while ago, whose events retention deletes again (IssueStore.listDeletedIssues). */
export interface DeletedIssue {
  projectId: number;
  issueId: number;
}

export interface IssueStore {
  /** Applies a batch of event occurrences atomically; idempotent by (project, event id). */
  recordOccurrences(batch: OccurrenceBatch): Promise<OccurrenceResult[]>;
  listIssues(query: IssueListQuery): Promise<Page<Issue>>;
  /** How many issues match, however many (the dashboard's "all N matching"). */
  countIssues(query: IssueQuery): Promise<number>;
  /** The environments the project's events came with, sorted, at most `limit` (kept as events are recorded, like releases). */
  listEnvironments(projectId: number, limit: number): Promise<string[]>;
  /** The project's `limit` most recently seen issues, newest first, in outline. */
  listIssueOutlines(projectId: number, limit: number): Promise<IssueOutline[]>;
  /** The issue's `maxKeys` most carried tag keys (ties by key), each with its `maxValues` commonest values (ties by value). */
  tagSummary(issueId: number, maxKeys: number, maxValues: number): Promise<TagSummary[]>;
  findIssue(projectId: number, shortNumber: number): Promise<Issue | undefined>;
  getIssue(id: number): Promise<Issue | undefined>;
  /** Of these issues, those ignored, or snoozed past `at`: they send no alerts. */
  mutedIssues(issueIds: number[], at: Date): Promise<Set<number>>;
  /** Applies a triage action to the issues of one project; returns the ids whose status changed. */
  changeIssues(projectId: number, issueIds: number[], change: IssueChange): Promise<number[]>;
  /**
   * Removes issues with their hashes, users and activity; a later event with their fingerprint
   * starts a new issue. Each one removed is remembered as deleted (listDeletedIssues), so that
   * events a batch stores for it after this are found and deleted too. Returns the ids of those
   * it removed (not those already gone).
   */
  deleteIssues(projectId: number, issueIds: number[]): Promise<number[]>;
  /** Issues deleted before `before`, oldest first, at most `limit`. */
  listDeletedIssues(before: Date, limit: number): Promise<DeletedIssue[]>;
  /** Forgets that these issues were deleted, once their late events are gone. */
  forgetDeletedIssues(issues: DeletedIssue[]): Promise<void>;
  /** Newest first. */
  listIssueActivity(issueId: number, limit: number): Promise<IssueActivity[]>;
  /** Snoozed issues whose snooze ended by `now` go back to unresolved; returns how many. */
  expireSnoozes(now: Date): Promise<number>;
  /** The project's newest releases (by first seen), at most `limit`: DSN holders can add any number. */
  listReleases(projectId: number, limit: number): Promise<Release[]>;
  countReleases(projectId: number): Promise<number>;
  findRelease(projectId: number, version: string): Promise<Release | undefined>;
  /** The counts of each of these releases of the project (every version asked is in the map; zeros for none). */
  releaseCounts(projectId: number, versions: string[]): Promise<Map<string, ReleaseCounts>>;

  /**
   * Forgets which event ids were counted before the cutoff (float seconds): retention. In
   * statements of at most `batchSize` rows (an hour at 10,000 events/s is 36 million).
   */
  forgetProcessedEventsBefore(cutoff: number, batchSize?: number): Promise<number>;
}
