// An occurrence is what the dispatcher tells the MetadataStore about one event: which issue
// hashes it has and the facts the issue keeps (title, level, times, environment, release,
// user). The store applies a batch of them in one transaction, first grouping them per issue
// (aggregateOccurrences) so a burst of 500 events on 5 issues costs 5 issue updates, not 500.
import type { Level } from '../event/level.ts';
import type { IssueMetadata } from '../ports/metadata-store.ts';

export interface Occurrence {
  projectId: number;
  eventId: string;
  /** Grouping hashes, primary first. */
  hashes: string[];
  title: string;
  culprit: string;
  level: Level;
  type: 'error' | 'default';
  metadata: IssueMetadata;
  /** Float seconds since the epoch. */
  timestamp: number;
  environment: string | null;
  release: string | null;
  userKey: string | null;
  /** The event's tags, counted per issue for its tag summary; environment and release among them, as Sentry shows them. */
  tags: Record<string, string>;
}

export type OccurrenceBatch = Occurrence[];

export interface OccurrenceResult {
  projectId: number;
  eventId: string;
  issueId: number;
  shortId: string;
  /** This event created the issue. */
  isNewIssue: boolean;
  /**
   * The event id was recorded before (a redelivery); nothing was counted again. The other facts
   * are those of its first delivery, so what follows from them (alerts) can be redone alike.
   */
  isDuplicate: boolean;
  /** This event's batch moved the issue from resolved back to unresolved. */
  isRegression: boolean;
  /** This event brought its release to the project for the first time. */
  isNewRelease: boolean;
  /** The issue's event count before and after the batch that counted this event (alert milestones). */
  countBefore: number;
  countAfter: number;
  /**
   * A redelivery of an event counted for an issue deleted since: it is not stored, so a batch
   * retried or read again from the queue does not bring a deleted issue's events back.
   */
  issueDeleted?: true;
}

/** Occurrences of one batch that share a primary hash, folded into one issue update. */
export interface OccurrenceGroup {
  projectId: number;
  hashes: string[];
  eventIds: string[];
  count: number;
  firstSeen: number;
  lastSeen: number;
  /** The newest occurrence decides title, culprit, level and metadata, as in Sentry. */
  latest: Occurrence;
  /** The oldest occurrence is the one that "created" the issue when it is new. */
  earliest: Occurrence;
  environments: string[];
  releases: string[];
  /** The oldest and the newest occurrence with a release: an issue's first and last release. */
  earliestReleased: Occurrence | undefined;
  latestReleased: Occurrence | undefined;
  userKeys: string[];
}

export function aggregateOccurrences(occurrences: Occurrence[]): OccurrenceGroup[] {
  const groups = new Map<string, OccurrenceGroup>();
  for (const occurrence of occurrences) {
    const key = `${occurrence.projectId}:${occurrence.hashes[0]}`;
    const group = groups.get(key);
    if (!group) {
      groups.set(key, {
        projectId: occurrence.projectId,
        hashes: [...occurrence.hashes],
        eventIds: [occurrence.eventId],
        count: 1,
        firstSeen: occurrence.timestamp,
        lastSeen: occurrence.timestamp,
        latest: occurrence,
        earliest: occurrence,
        environments: occurrence.environment ? [occurrence.environment] : [],
        releases: occurrence.release ? [occurrence.release] : [],
        earliestReleased: occurrence.release ? occurrence : undefined,
        latestReleased: occurrence.release ? occurrence : undefined,
        userKeys: occurrence.userKey ? [occurrence.userKey] : [],
      });
      continue;
    }
    group.eventIds.push(occurrence.eventId);
    group.count += 1;
    for (const hash of occurrence.hashes) addUnique(group.hashes, hash);
    if (occurrence.timestamp < group.firstSeen) {
      group.firstSeen = occurrence.timestamp;
      group.earliest = occurrence;
    }
    if (occurrence.timestamp >= group.lastSeen) {
      group.lastSeen = occurrence.timestamp;
      group.latest = occurrence;
    }
    if (occurrence.environment) addUnique(group.environments, occurrence.environment);
    if (occurrence.release) {
      addUnique(group.releases, occurrence.release);
      group.earliestReleased = earlier(group.earliestReleased, occurrence);
      group.latestReleased = later(group.latestReleased, occurrence);
    }
    if (occurrence.userKey) addUnique(group.userKeys, occurrence.userKey);
  }
  return [...groups.values()];
}

function earlier(a: Occurrence | undefined, b: Occurrence | undefined): Occurrence | undefined {
  return !a || (b && b.timestamp < a.timestamp) ? b : a;
}

function later(a: Occurrence | undefined, b: Occurrence | undefined): Occurrence | undefined {
  return !a || (b && b.timestamp >= a.timestamp) ? b : a;
}

function addUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

/** Several groups that turned out to belong to one issue, folded into one update. */
export function mergeGroups(groups: OccurrenceGroup[]): OccurrenceGroup {
  const [first, ...rest] = groups;
  if (!first) throw new Error('mergeGroups needs at least one group');
  const merged: OccurrenceGroup = {
    ...first,
    hashes: [...first.hashes],
    eventIds: [...first.eventIds],
    environments: [...first.environments],
    releases: [...first.releases],
    userKeys: [...first.userKeys],
  };
  for (const group of rest) {
    merged.count += group.count;
    merged.eventIds.push(...group.eventIds);
    for (const hash of group.hashes) addUnique(merged.hashes, hash);
    for (const environment of group.environments) addUnique(merged.environments, environment);
    for (const release of group.releases) addUnique(merged.releases, release);
    for (const user of group.userKeys) addUnique(merged.userKeys, user);
    merged.earliestReleased = earlier(merged.earliestReleased, group.earliestReleased);
    merged.latestReleased = later(merged.latestReleased, group.latestReleased);
    if (group.firstSeen < merged.firstSeen) {
      merged.firstSeen = group.firstSeen;
      merged.earliest = group.earliest;
    }
    if (group.lastSeen >= merged.lastSeen) {
      merged.lastSeen = group.lastSeen;
      merged.latest = group.latest;
    }
  }
  return merged;
}
