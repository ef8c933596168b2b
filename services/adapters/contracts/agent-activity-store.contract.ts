// The AgentActivityStore contract (one record per MCP tool call; a slice of the MetadataStore):
// every adapter must pass these tests, run against the real database, with a TenancyStore over
// the same database for the organizations the calls belong to.
import { beforeAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../../core/errors.ts';
import type { AgentActivityStore, NewAgentCall } from '../../core/ports/agent-activity-store.ts';
import type { TenancyStore } from '../../core/ports/tenancy-store.ts';
import * as fixtures from './metadata-fixtures.ts';

const T = Date.parse('2030-01-01T12:00:00Z');

export function describeAgentActivityStoreContract(
  name: string,
  open: () => Promise<{ activity: AgentActivityStore; tenancy: TenancyStore }>,
): void {
  describe(`AgentActivityStore contract: ${name}`, () => {
    let store: AgentActivityStore;
    let tenancy: TenancyStore;
    beforeAll(async () => {
      ({ activity: store, tenancy } = await open());
    });

    const call = (organizationId: number, overrides: Partial<NewAgentCall>): NewAgentCall => ({
      organizationId,
      tokenId: 1,
      tokenName: 'laptop',
      tool: 'list_issues',
      at: new Date(T),
      durationMs: 12,
      outcome: 'ok',
      reason: null,
      argumentSummary: 'project=web',
      issues: [],
      ...overrides,
    });

    it('records calls and lists them newest first, filtered by token, tool and issue, page by page', async () => {
      const { org } = await fixtures.orgWithProject(tenancy);
      const { org: other } = await fixtures.orgWithProject(tenancy);
      await store.recordAgentCalls([
        call(org.id, { at: new Date(T), tool: 'whoami', argumentSummary: '' }),
        call(org.id, { at: new Date(T + 1000), tool: 'update_issue', issues: ['WEB-1'], argumentSummary: 'shortId=WEB-1' }),
        call(org.id, { at: new Date(T + 2000), tokenId: 2, tokenName: 'ci', outcome: 'refused', reason: 'role', tool: 'create_project' }),
        call(org.id, { at: new Date(T + 3000), tool: 'bulk_update_issues', issues: ['WEB-1', 'WEB-2'] }),
        call(other.id, { at: new Date(T + 4000), issues: ['WEB-1'] }),
      ]);
      await store.recordAgentCalls([]);

      const all = await store.listAgentCalls({ organizationId: org.id, limit: 10 });
      expect(all.items.map((c) => c.tool)).toEqual(['bulk_update_issues', 'create_project', 'update_issue', 'whoami']);
      expect(all.nextCursor).toBeUndefined();
      expect(all.items[1]).toMatchObject({
        organizationId: org.id,
        tokenId: 2,
        tokenName: 'ci',
        outcome: 'refused',
        reason: 'role',
        durationMs: 12,
        argumentSummary: 'project=web',
        issues: [],
        at: new Date(T + 2000),
      });
      expect(typeof all.items[0]!.id).toBe('number');

      const tools = (query: Partial<Parameters<AgentActivityStore['listAgentCalls']>[0]>) =>
        store.listAgentCalls({ organizationId: org.id, limit: 10, ...query }).then((page) => page.items.map((c) => c.tool));
      expect(await tools({ tokenId: 2 })).toEqual(['create_project']);
      expect(await tools({ tool: 'update_issue' })).toEqual(['update_issue']);
      expect(await tools({ issue: 'WEB-1' })).toEqual(['bulk_update_issues', 'update_issue']);
      expect(await tools({ issue: 'WEB-2', tokenId: 1 })).toEqual(['bulk_update_issues']);
      expect(await tools({ issue: 'WEB-3' })).toEqual([]);

      const first = await store.listAgentCalls({ organizationId: org.id, limit: 3 });
      expect(first.items.map((c) => c.tool)).toEqual(['bulk_update_issues', 'create_project', 'update_issue']);
      const second = await store.listAgentCalls({ organizationId: org.id, limit: 3, cursor: first.nextCursor });
      expect(second.items.map((c) => c.tool)).toEqual(['whoami']);
      expect(second.nextCursor).toBeUndefined();
      await expect(store.listAgentCalls({ organizationId: org.id, limit: 3, cursor: 'nonsense' })).rejects.toBeInstanceOf(
        UserInputError,
      );
    });

    it('pages calls made in the same millisecond without losing or repeating one', async () => {
      const { org } = await fixtures.orgWithProject(tenancy);
      await store.recordAgentCalls(['a', 'b', 'c'].map((tool) => call(org.id, { tool })));
      const first = await store.listAgentCalls({ organizationId: org.id, limit: 2 });
      const second = await store.listAgentCalls({ organizationId: org.id, limit: 2, cursor: first.nextCursor });
      expect([...first.items, ...second.items].map((c) => c.tool).sort()).toEqual(['a', 'b', 'c']);
    });

    it("counts each token's calls since a time in one answer, tokens without any left out", async () => {
      const { org } = await fixtures.orgWithProject(tenancy);
      const { org: other } = await fixtures.orgWithProject(tenancy);
      await store.recordAgentCalls([
        call(org.id, { tokenId: 7, at: new Date(T - 86_400_000 - 1) }),
        call(org.id, { tokenId: 7, at: new Date(T - 1000) }),
        call(org.id, { tokenId: 7, at: new Date(T), outcome: 'rate_limited' }),
        call(org.id, { tokenId: 8, at: new Date(T) }),
        call(other.id, { tokenId: 9, at: new Date(T) }),
      ]);
      const counts = await store.countAgentCallsSince(org.id, new Date(T - 86_400_000));
      expect([...counts.entries()].sort()).toEqual([
        [7, 2],
        [8, 1],
      ]);
    });

    it('deletes calls made before a cutoff and keeps the rest', async () => {
      const { org } = await fixtures.orgWithProject(tenancy);
      const old = Date.parse('2001-01-01T00:00:00Z');
      await store.recordAgentCalls([
        call(org.id, { tool: 'old', at: new Date(old) }),
        call(org.id, { tool: 'new', at: new Date(old + 2 * 86_400_000) }),
      ]);
      expect(await store.deleteAgentCallsBefore(new Date(old + 86_400_000))).toBeGreaterThanOrEqual(1);
      const left = await store.listAgentCalls({ organizationId: org.id, limit: 10 });
      expect(left.items.map((c) => c.tool)).toEqual(['new']);
    });
  });
}
