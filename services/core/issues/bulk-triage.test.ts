import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Issue, MetadataStore } from '../ports/metadata-store.ts';
import { errorEvent, OPEN_TIMEOUT_MS, openToolHarness, type ToolHarness } from '../../../test/support/tool-harness.ts';
import { matchingIssues, triageMatching } from './bulk-triage.ts';
import { triageIssues } from './triage.ts';

let h: ToolHarness;
const issues: Issue[] = [];

beforeAll(async () => {
  h = await openToolHarness();
  for (let i = 0; i < 7; i++) {
    issues.push(
      await h.sendEvent(
        h.projects.web,
        errorEvent('TypeError', `flood ${i}`, { fingerprint: [`flood ${i}`] }),
        Date.UTC(2026, 0, 1, 0, i),
      ),
    );
  }
}, OPEN_TIMEOUT_MS);
afterAll(() => h.close());

const filter = () => ({ projectId: h.projects.web.id, status: 'unresolved' as const });
const actor = { kind: 'person', name: 'ada@example.com' } as const;

describe('matchingIssues', () => {
  it('keeps the first matches up to the cap, in the sort, and says whether more matched', async () => {
    const newestFirst = [...issues].reverse().map(({ id, projectId, shortId }) => ({ id, projectId, shortId }));
    expect(await matchingIssues(h.stores.metadata, filter(), 3)).toEqual({ issues: newestFirst.slice(0, 3), more: true });
    expect(await matchingIssues(h.stores.metadata, filter(), 6)).toEqual({ issues: newestFirst.slice(0, 6), more: true });
    expect(await matchingIssues(h.stores.metadata, filter(), 7)).toEqual({ issues: newestFirst, more: false });
    expect(await matchingIssues(h.stores.metadata, filter())).toEqual({ issues: newestFirst, more: false });
  });
});

describe('matchingIssues while events arrive', () => {
  it('takes every match, though one got an event between its pages and moved above them', async () => {
    const shop = h.projects.shop.id;
    const sent: Issue[] = [];
    for (let i = 0; i < 250; i++) {
      const event = errorEvent('TypeError', `busy ${i}`, { fingerprint: [`busy ${i}`] });
      sent.push(await h.sendEvent(h.projects.shop, event, Date.UTC(2026, 0, 1, 1, 0, i)));
    }
    // The least recently seen: on the second page of 200 by last seen, until it gets an event
    // once the first page has been read. Before, it was left out.
    const oldest = sent[0]!;
    let arrived = false;
    const watching = {
      listIssues: async (query: Parameters<MetadataStore['listIssues']>[0]) => {
        const page = await h.stores.metadata.listIssues(query);
        if (!arrived) {
          arrived = true;
          const again = errorEvent('TypeError', 'busy 0', { fingerprint: ['busy 0'] });
          await h.sendEvent(h.projects.shop, again, Date.UTC(2026, 0, 1, 2));
        }
        return page;
      },
    } as MetadataStore;
    const matches = await matchingIssues(watching, { projectId: shop, status: 'unresolved' });
    expect(matches.more).toBe(false);
    expect(matches.issues).toHaveLength(250);
    // In the filter's order (last seen): the one that got an event is now the first.
    expect(matches.issues[0]!.id).toBe(oldest.id);
    expect(new Set(matches.issues.map((issue) => issue.id))).toEqual(new Set(sent.map((issue) => issue.id)));
  });
});

describe('triageMatching', () => {
  it('acts on the first matches up to the cap; called again, it reaches the rest that still match', async () => {
    const ports = { metadata: h.stores.metadata, events: h.stores.events };
    const now = new Date(Date.UTC(2026, 0, 2));
    const first = await triageMatching(ports, filter(), { action: 'resolve' }, actor, now, 5);
    expect(first).toMatchObject({ matched: 5, changed: 5, more: true });
    // The five newest (the default sort is last seen); the store names them in id order.
    expect(first.changedIds).toEqual(issues.slice(2).map((issue) => issue.id));
    const second = await triageMatching(ports, filter(), { action: 'resolve' }, actor, now, 5);
    expect(second).toMatchObject({ matched: 2, changed: 2, more: false });
    expect(await h.stores.metadata.countIssues(filter())).toBe(0);
  });
});

describe('triageIssues deleting', () => {
  it('names only the issues it removed, not those another call removed first', async () => {
    const a = await h.sendEvent(h.projects.web, errorEvent('TypeError', 'deleted twice', { fingerprint: ['deleted twice'] }));
    const b = await h.sendEvent(h.projects.web, errorEvent('TypeError', 'deleted once', { fingerprint: ['deleted once'] }));
    const ports = { metadata: h.stores.metadata, events: h.stores.events };
    const at = new Date(h.now);
    // Two agents deleting at once: the later one reported every issue as its own deletion.
    expect(await triageIssues(ports, h.projects.web.id, [a], { action: 'delete' }, actor, at)).toEqual({
      matched: 1,
      changed: 1,
      changedIds: [a.id],
    });
    expect(await triageIssues(ports, h.projects.web.id, [a, b], { action: 'delete' }, actor, at)).toEqual({
      matched: 2,
      changed: 1,
      changedIds: [b.id],
    });
  });
});
