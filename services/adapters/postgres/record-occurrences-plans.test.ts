// Recording a batch looks up each event id in processed_events and each hash in issue_hashes,
// and updates the batch's issues: tables that grow with every event or issue, in every project.
// Each must be reached through its primary key: joined plainly to a batch of 250, the planner
// hashed the whole table instead once it held some thousands of rows (in PGlite, a lookup of 250
// ids in 17.6 ms at 20,000 rows against 3.7 ms probed; the UPDATE of 126 issues among 20,000 in
// 32-46 ms against 14-25). Checked on PGlite by asking the planner again for what the store sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Occurrence } from '../../core/issues/occurrence.ts';
import { PGliteClient } from '../pglite/pglite-client.ts';
import { migrate } from './migrate.ts';
import { PgIssueStore } from './pg-issue-store.ts';
import { PgMetadataStore } from './pg-metadata-store.ts';
import type { SqlClient, SqlExecutor } from './sql-client.ts';

interface Recorded {
  db: PGliteClient;
  statements: Array<{ sql: string; params: unknown[] }>;
}

/** The database, noting each SELECT, UPDATE and DELETE a transaction sends, to plan it again below. */
function noting(recorded: Recorded): SqlClient {
  const { db } = recorded;
  return {
    query: (sql, params) => db.query(sql, params),
    transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) =>
      db.transaction((tx) =>
        work({
          query(sql, params) {
            if (/^\s*(SELECT|UPDATE|DELETE)/i.test(sql)) recorded.statements.push({ sql, params: params ?? [] });
            return tx.query(sql, params);
          },
        }),
      ),
    close: () => db.close(),
  };
}

function occurrence(projectId: number, n: number, hash: string): Occurrence {
  return {
    projectId,
    eventId: `batch-event-${n}`,
    hashes: [hash],
    title: 'ValueError: thing',
    culprit: 'app.handlers',
    level: 'error',
    type: 'error',
    metadata: { type: 'ValueError', value: 'thing' },
    timestamp: 1_750_000_000 + n,
    environment: null,
    release: null,
    userKey: null,
    tags: {},
  };
}

/**
 * A database holding `rows` issues with a hash each and as many counted events, then a batch of
 * `batch` recorded: half new issues, half events of existing ones. `analyze` runs what the
 * embedded database's maintenance job runs (table-maintenance.ts), so the planner knows the
 * tables' sizes.
 */
async function recordBatch(rows: number, batch: number, analyze: boolean): Promise<Recorded> {
  const recorded: Recorded = { db: await PGliteClient.open(undefined), statements: [] };
  const { db } = recorded;
  await migrate(db);
  await db.query(`INSERT INTO organizations (slug, name) VALUES ('plans', 'Plans')`);
  const project = await db.query<{ id: number }>(
    `INSERT INTO projects (organization_id, slug, name) SELECT id, 'plans', 'Plans' FROM organizations RETURNING id`,
  );
  const projectId = project.rows[0]!.id;
  await db.query(
    `INSERT INTO issues (project_id, short_number, title, culprit, level, type, metadata, first_seen, last_seen, times_seen, status)
     SELECT $1, g, 'ValueError: thing', 'app', 'error', 'error', '{}', now(), now(), 1, 'unresolved' FROM generate_series(1, $2::int) g`,
    [projectId, rows],
  );
  await db.query(`UPDATE projects SET issue_counter = $1`, [rows]);
  await db.query(
    `INSERT INTO issue_hashes (project_id, hash, issue_id) SELECT project_id, 'old-hash-' || short_number, id FROM issues`,
  );
  await db.query(
    `INSERT INTO processed_events (project_id, event_id, issue_id, is_new_issue, is_regression, is_new_release, count_before, count_after)
     SELECT project_id, 'old-event-' || short_number, id, false, false, false, 0, 1 FROM issues`,
  );
  if (analyze) await db.query('VACUUM (ANALYZE)');
  const occurrences = Array.from({ length: batch }, (_, n) =>
    occurrence(projectId, n, n % 2 ? `new-hash-${n}` : `old-hash-${(n % rows) + 1}`),
  );
  await new PgMetadataStore(noting(recorded)).recordOccurrences(occurrences);
  return recorded;
}

async function planOf({ db, statements }: Recorded, pattern: RegExp): Promise<string> {
  const statement = statements.find(({ sql }) => pattern.test(sql));
  expect(statement, `a statement matching ${pattern}`).toBeDefined();
  const rows = await db.query<Record<string, string>>(`EXPLAIN ${statement!.sql}`, statement!.params);
  return rows.rows.map((row) => Object.values(row)[0]).join('\n');
}

const LOOKED_UP = ['processed_events', 'issue_hashes'];

async function expectProbed(recorded: Recorded, table: string): Promise<void> {
  const shape = await planOf(recorded, new RegExp(`^\\s*SELECT[\\s\\S]*\\b${table}\\b`));
  expect(shape).toContain(`Index Scan using ${table}_pkey`);
  expect(shape).not.toContain(`Seq Scan on ${table}`);
}

describe('recording a batch of 250 against tables of 20,000 rows', () => {
  let busy: Recorded;
  beforeAll(async () => {
    busy = await recordBatch(20_000, 250, false);
  }, 120_000); // about 5 s alone; more beside other suites
  afterAll(async () => {
    await busy?.db.close();
  });

  it.each(LOOKED_UP)('looks up %s by its primary key, row by row', (table) => expectProbed(busy, table));

  it("updates the batch's issues found by their primary key", async () => {
    const shape = await planOf(busy, /^\s*UPDATE issues/);
    expect(shape).toContain('Index Scan on issues_pkey');
    expect(shape).not.toContain('Seq Scan on issues');
  });

  // Last: it deletes two of the issues. Their counted event ids stay as the deletion's
  // tombstones (record-occurrences.ts), so the delete reads none of the project's; their hashes
  // are found by issue.
  it("deletes issues without reading the project's counted event ids", async () => {
    const two = await busy.db.query<{ project_id: number; id: number }>('SELECT project_id, id FROM issues ORDER BY id LIMIT 2');
    const { project_id: projectId } = two.rows[0]!;
    const before = busy.statements.length;
    expect(
      await new PgIssueStore(noting(busy)).deleteIssues(
        projectId,
        two.rows.map((r) => r.id),
      ),
    ).toHaveLength(2);
    const statements = busy.statements.slice(before).map(({ sql }) => sql);
    expect(statements.some((sql) => /processed_events/.test(sql))).toBe(false);
    const shape = await planOf(busy, /^\s*DELETE FROM issues/);
    expect(shape).not.toContain('Seq Scan on issues');
  });
});

// A small installation, its tables analyzed: with Postgres's default random_page_cost of 4 the
// planner read the whole table for each hash or event id of the batch while it held a few hundred
// rows, 5-6 ms a lookup of 200 hashes in PGlite against 2 probed (docs/benchmarks.md, 2026-12-03
// (third)). The embedded database's pages are in memory, so it prices a random read at 1.1
// (pglite-client.ts).
describe('recording a batch of 200 against 100 issues, analyzed', () => {
  let small: Recorded;
  beforeAll(async () => {
    small = await recordBatch(100, 200, true);
  }, 60_000);
  afterAll(async () => {
    await small?.db.close();
  });

  it.each(LOOKED_UP)('looks up %s by its primary key, row by row', (table) => expectProbed(small, table));
});
