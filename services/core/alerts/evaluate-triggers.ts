// Which rules an event batch sets off (pure). The dispatcher hands over one AlertFacts per event
// of the batch, a redelivered event with the very facts of its first delivery, so evaluating a
// batch twice yields the same candidates; each carries a dedup key, and the delivery store keeps
// one delivery per (rule, channel, key). That makes alerts exactly-once across redeliveries and
// is also the throttle that keeps a noisy issue from flooding a channel:
//   new_issue          once per issue                    new_issue:<issue>
//   regression         once per regressing event         regression:<issue>:<event>
//   frequent           at most once per window per issue frequent:<issue>:<window number>
//   many_users         once per issue, or per window     many_users:<issue>[:<window number>]
//   milestone          once per issue and count          milestone:<issue>:<count>
//   every_occurrence   once per event                    every_occurrence:<event>
//   new_release        once per project and release      new_release:<project>:<release>
// `frequent` and `many_users` also depend on counts in the stores: their candidates carry the
// check the dispatcher makes before they become deliveries.
import { levelRank, type Level } from '../event/level.ts';
import { DEFAULT_MILESTONES, type AlertRule, type Trigger } from './alert-rules.ts';

export interface AlertFacts {
  projectId: number;
  eventId: string;
  issueId: number;
  shortId: string;
  /** The event's title and culprit. */
  title: string;
  culprit: string;
  level: Level;
  environment: string | null;
  release: string | null;
  /**
   * When the event was received, float seconds: what numbers the windows of `frequent` and
   * `many_users`. Stable across redeliveries; the event's own time is not used, since a backlog of
   * old events (an SDK flushing days offline) fell each in a window of its own, and alerted once
   * for every one while the issue was busy now.
   */
  receivedAt: number;
  isNewIssue: boolean;
  isRegression: boolean;
  /** This event brought its release to the project for the first time. */
  isNewRelease: boolean;
  /** The issue's event count before and after the batch that counted this event. */
  countBefore: number;
  countAfter: number;
}

export interface AlertCandidate {
  rule: AlertRule;
  kind: Trigger;
  dedupKey: string;
  facts: AlertFacts;
  /** For milestone: the count it crossed. */
  milestone?: number;
  /** For frequent and many_users: fire only if the count in the window is above the threshold. */
  check?: { measure: 'events' | 'users'; threshold: number; windowMinutes: number | null };
}

export function evaluateTriggers(rules: AlertRule[], batch: AlertFacts[]): AlertCandidate[] {
  const out = new Map<string, AlertCandidate>();
  const add = (candidate: AlertCandidate) => {
    const key = `${candidate.rule.id}:${candidate.dedupKey}`;
    if (!out.has(key)) out.set(key, candidate);
  };
  for (const facts of batch) {
    for (const rule of rules) {
      if (!rule.enabled || rule.projectId !== facts.projectId || !passesFilters(rule, facts)) continue;
      for (const candidate of candidatesOf(rule, facts)) add(candidate);
    }
  }
  return [...out.values()];
}

function passesFilters(rule: AlertRule, facts: AlertFacts): boolean {
  if (rule.environment !== null && rule.environment !== facts.environment) return false;
  return rule.minLevel === null || levelRank(facts.level) >= levelRank(rule.minLevel);
}

function candidatesOf(rule: AlertRule, facts: AlertFacts): AlertCandidate[] {
  const base = { rule, kind: rule.trigger, facts };
  const issue = facts.issueId;
  switch (rule.trigger) {
    case 'new_issue':
      return facts.isNewIssue ? [{ ...base, dedupKey: `new_issue:${issue}` }] : [];
    case 'regression':
      return facts.isRegression ? [{ ...base, dedupKey: `regression:${issue}:${facts.eventId}` }] : [];
    case 'every_occurrence':
      return [{ ...base, dedupKey: `every_occurrence:${facts.eventId}` }];
    case 'new_release':
      return facts.isNewRelease && facts.release
        ? [{ ...base, dedupKey: `new_release:${facts.projectId}:${facts.release}` }]
        : [];
    case 'milestone':
      return (rule.milestones ?? DEFAULT_MILESTONES)
        .filter((m) => facts.countBefore < m && m <= facts.countAfter)
        .map((m) => ({ ...base, milestone: m, dedupKey: `milestone:${issue}:${m}` }));
    case 'frequent': {
      const window = rule.windowMinutes!;
      return [
        {
          ...base,
          dedupKey: `frequent:${issue}:${windowNumber(facts.receivedAt, window)}`,
          check: { measure: 'events', threshold: rule.threshold!, windowMinutes: window },
        },
      ];
    }
    case 'many_users': {
      const window = rule.windowMinutes;
      const suffix = window === null ? '' : `:${windowNumber(facts.receivedAt, window)}`;
      return [
        {
          ...base,
          dedupKey: `many_users:${issue}${suffix}`,
          check: { measure: 'users', threshold: rule.threshold!, windowMinutes: window },
        },
      ];
    }
  }
}

/** Fixed windows counted from the epoch, so every dispatcher numbers them alike. */
function windowNumber(seconds: number, windowMinutes: number): number {
  return Math.floor(seconds / (windowMinutes * 60));
}
