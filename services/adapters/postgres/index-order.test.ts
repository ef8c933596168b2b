// Pages read in an index's order, not sorted after. A store that selects a column under an
// alias (a float `timestamp`, a text `id`) and orders by the bare name orders by the alias:
// Postgres then reads and sorts every row of the window, and, for a text id, pages in the
// wrong order. Checked on PGlite by asking the planner for each page query with sorting made
// as costly as it can be: a query an index can answer then shows no Sort.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../pglite/pglite-client.ts';
import { migrate } from './migrate.ts';
import { PgAgentActivityStore } from './pg-agent-activity-store.ts';
import { PgLogStore } from './pg-log-store.ts';
import { PgTenancyStore } from './pg-tenancy-store.ts';
import type { SqlClient, SqlExecutor } from './sql-client.ts';

let db: PGliteClient;
const seen: Array<{ sql: string; params: unknown[] }> = [];

/** The database, noting each SELECT the store sends, to plan it again below. */
const noting: SqlClient = {
  query(sql, params) {
    if (/^\s*SELECT/i.test(sql)) seen.push({ sql, params: params ?? [] });
    return db.query(sql, params);
  },
  transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) => db.transaction(work),
  close: () => db.close(),
};

async function planOfLastSelect(): Promise<string> {
  const { sql, params } = seen.at(-1)!;
  await db.query('SET enable_sort = off');
  try {
    const plan = await db.query<Record<string, string>>(`EXPLAIN ${sql}`, params);
    return plan.rows.map((row) => Object.values(row)[0]).join('\n');
  } finally {
    await db.query('RESET enable_sort');
  }
}

beforeAll(async () => {
  db = await PGliteClient.open(undefined);
  await migrate(db);
});
afterAll(async () => {
  await db?.close();
});

describe('page queries in index order', () => {
  it("searchLogs reads a window's newest records through the index, without sorting them", async () => {
    const logs = new PgLogStore(noting);
    await logs.searchLogs({ projectId: 1, since: 0, until: 2_000_000_000, limit: 50 });
    const plan = await planOfLastSelect();
    expect(plan).toContain('logs_project_time');
    expect(plan).not.toMatch(/Sort/);
  });

  it('listAgentCalls pages calls of one millisecond by number, across 9 to 10', async () => {
    // A fresh database: ids 1 to 12, so a text order would put 10 to 12 after 9 and a cursor lose them.
    const tenancy = new PgTenancyStore(db);
    const org = await tenancy.ensureOrganization('order', 'Order');
    const activity = new PgAgentActivityStore(noting);
    const at = new Date('2030-01-01T12:00:00Z');
    await activity.recordAgentCalls(
      Array.from({ length: 12 }, (_, n) => ({
        organizationId: org.id,
        tokenId: 1,
        tokenName: 'laptop',
        tool: `tool_${n + 1}`,
        at,
        durationMs: 1,
        outcome: 'ok' as const,
        reason: null,
        argumentSummary: '',
        issues: [],
      })),
    );
    const tools: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await activity.listAgentCalls({ organizationId: org.id, limit: 5, ...(cursor ? { cursor } : {}) });
      tools.push(...page.items.map((call) => call.tool));
      cursor = page.nextCursor;
    } while (cursor);
    expect(tools).toEqual(Array.from({ length: 12 }, (_, n) => `tool_${12 - n}`));
    expect(await planOfLastSelect()).not.toMatch(/Sort/);
  });
});
