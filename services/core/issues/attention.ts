// Why an issue needs attention (whats_new) and in what order such issues come. Priority: an issue
// ranks by its most pressing reason (regressed, then new, then spiking, then burst), then by its
// events in the window, then by how recently it was seen. A regression comes first because a fix
// was believed and did not hold; a new issue is a fresh bug; a spike is a known bug getting worse;
// a burst (a rise with no usual rate to compare to, core/issues/spiking.ts) may be either.
import type { Issue, IssueSort } from '../ports/issue-store.ts';

export const ATTENTION_REASONS = ['regressed', 'new', 'spiking', 'burst'] as const;
export type AttentionReason = (typeof ATTENTION_REASONS)[number];

/** The orders whats_new lists in: priority (the default), or one of the issue list's. */
type AttentionSort = 'priority' | IssueSort;

export interface Attention {
  issue: Issue;
  /** In ATTENTION_REASONS order. */
  reasons: AttentionReason[];
  eventsInWindow: number;
}

const rank = (a: Attention) => Math.min(...a.reasons.map((r) => ATTENTION_REASONS.indexOf(r)));

/** Orders issues needing attention; every order is newest or largest first, ties by id, newest first (as the store pages). */
export function compareAttention(sort: AttentionSort): (a: Attention, b: Attention) => number {
  const key: (a: Attention) => number[] = {
    priority: (a: Attention) => [-rank(a), a.eventsInWindow, a.issue.lastSeen.getTime()],
    lastSeen: (a: Attention) => [a.issue.lastSeen.getTime()],
    firstSeen: (a: Attention) => [a.issue.firstSeen.getTime()],
    events: (a: Attention) => [a.issue.count],
    users: (a: Attention) => [a.issue.userCount],
  }[sort];
  return (a, b) => {
    const [ka, kb] = [
      [...key(a), a.issue.id],
      [...key(b), b.issue.id],
    ];
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return kb[i]! - ka[i]!;
    return 0;
  };
}

/** Adds a reason to an issue's list, keeping ATTENTION_REASONS order. */
export function withReason(reasons: AttentionReason[], reason: AttentionReason): AttentionReason[] {
  return ATTENTION_REASONS.filter((r) => r === reason || reasons.includes(r));
}
