import { describe, expect, it } from 'vitest';
import type { Issue } from '../ports/issue-store.ts';
import { compareAttention, withReason, type Attention, type AttentionReason } from './attention.ts';

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1) + minutes * 60_000);
const entry = (id: number, reasons: AttentionReason[], eventsInWindow: number, lastSeen = 0, count = 0): Attention => ({
  issue: { id, lastSeen: at(lastSeen), firstSeen: at(-id), count, userCount: 0 } as Issue,
  reasons,
  eventsInWindow,
});

describe('compareAttention', () => {
  it('ranks by the most pressing reason, then events in the window, then last seen, then id', () => {
    const list = [
      entry(1, ['burst'], 500),
      entry(2, ['spiking'], 40),
      entry(3, ['new', 'burst'], 12),
      entry(4, ['new'], 12, 5),
      entry(5, ['regressed'], 1),
      entry(6, ['new'], 12, 5),
    ];
    expect(list.sort(compareAttention('priority')).map((a) => a.issue.id)).toEqual([5, 6, 4, 3, 2, 1]);
  });

  it("sorts by the issue list's orders, largest or newest first", () => {
    const list = [entry(1, ['new'], 1, 0, 7), entry(2, ['burst'], 1, 3, 2), entry(3, ['regressed'], 1, 1, 7)];
    expect([...list].sort(compareAttention('events')).map((a) => a.issue.id)).toEqual([3, 1, 2]);
    expect([...list].sort(compareAttention('lastSeen')).map((a) => a.issue.id)).toEqual([2, 3, 1]);
    expect([...list].sort(compareAttention('firstSeen')).map((a) => a.issue.id)).toEqual([1, 2, 3]);
  });
});

describe('withReason', () => {
  it('keeps reasons once, in priority order', () => {
    expect(withReason(withReason(['burst'], 'new'), 'new')).toEqual(['new', 'burst']);
    expect(withReason(['new'], 'regressed')).toEqual(['regressed', 'new']);
  });
});
