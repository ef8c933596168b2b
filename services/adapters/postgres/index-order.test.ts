// Pages read in an index's order, not sorted after. A store that selects a column under an
// alias (a float `timestamp`, a text `id`) and orders by the bare name orders by the alias:
// Postgres then reads and sorts every row of the window, and, for a text id, pages in the
// wrong order. Checked on PGlite by asking the planner for each page query with sorting made
// as costly as it can be: a query an index can answer then shows no Sort. A log search also
// reads in time order by itself, whatever the planner guesses of how many records match.
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
  // The settings a store makes in a transaction (SET LOCAL) are noted with each query after them.
  transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) => {
    const settings: string[] = [];
    return db.transaction((tx) =>
      work({
        query(sql, params) {
          if (/^\s*SET LOCAL/i.test(sql)) settings.push(sql);
          else if (/^\s*SELECT/i.test(sql)) seen.push({ sql, params: params ?? [], settings: [...settings] } as never);
          return tx.query(sql, params);
        },
      }),
    );
  },
  close: () => db.close(),
};

/** The plan of the store's last SELECT (or `back` before it), under `planner` settings or else the ones the store made for it. */
async function planOfLastSelect(planner?: string, back = 0): Promise<string> {
  const { sql, params, settings: own } = seen.at(-1 - back)! as { sql: string; params: unknown[]; settings?: string[] };
  return db.transaction(async (tx) => {
    for (const setting of planner ? [planner] : (own ?? [])) await tx.query(setting);
    const plan = await tx.query<Record<string, string>>(`EXPLAIN ${sql}`, params);
    return plan.rows.map((row) => Object.values(row)[0]).join('\n');
  });
}

/** Sorting made as costly as it can be: a query an index can answer then shows no Sort. */
const NO_SORT = 'SET LOCAL enable_sort = off';

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
    const plan = await planOfLastSelect(NO_SORT);
    expect(plan).toContain('logs_project_time');
    expect(plan).not.toMatch(/Sort/);
  });

  it('searchLogs by text reads in time order whatever the planner guesses of the matches', async () => {
    // Statistics that sampled no match: the planner would rather read everything and sort.
    const logs = new PgLogStore(noting);
    await logs.insertLogs(
      Array.from({ length: 3000 }, (_, n) => ({
        id: `r${n}`,
        projectId: 1,
        timestamp: 1_700_000_000 + n,
        observedAt: 1_700_000_000 + n,
        traceId: null,
        spanId: null,
        level: 'info' as const,
        severityNumber: 9,
        body: `served /cart for user ${n}`,
        attributes: {},
        release: null,
        environment: null,
      })),
    );
    await db.query('ANALYZE logs');
    const found = await logs.searchLogs({ projectId: 1, text: 'upstream timeout', since: 0, until: 2_000_000_000, limit: 50 });
    expect(found.items).toEqual([]);
    // The search, before the query that looks for where it would have stopped.
    const plan = await planOfLastSelect(undefined, 1);
    expect(plan).toContain('~~*'); // ILIKE, as the plan writes it
    expect(plan).toContain('logs_project_time');
    expect(plan).not.toMatch(/Sort/);
  });

  it('a bounded log search reads in time order, and so does finding where it stopped', async () => {
    // The 3,000 records above; the search may read 1,000 of them and matches none.
    const found = await new PgLogStore(noting, undefined, 1000).searchLogs({ projectId: 1, text: 'upstream timeout', limit: 50 });
    expect(found.searchedTo).toBe(1_700_000_000 + 2000);
    const [search, bound] = [await planOfLastSelect(undefined, 1), await planOfLastSelect()];
    expect(search).toContain('logs_project_time');
    expect(bound).toContain('logs_project_time');
    expect(`${search}\n${bound}`).not.toMatch(/Sort/);
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
    expect(await planOfLastSelect(NO_SORT)).not.toMatch(/Sort/);
  });
});
