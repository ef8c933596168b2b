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
import { PgMetadataStore } from './pg-metadata-store.ts';
import type { SqlClient, SqlExecutor } from './sql-client.ts';

const ROWS = 20_000;
let db: PGliteClient;
let projectId: number;
const statements: Array<{ sql: string; params: unknown[] }> = [];

/** The database, noting each SELECT and UPDATE a transaction sends, to plan it again below. */
const noting: SqlClient = {
  query: (sql, params) => db.query(sql, params),
  transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) =>
    db.transaction((tx) =>
      work({
        query(sql, params) {
          if (/^\s*(SELECT|UPDATE)/i.test(sql)) statements.push({ sql, params: params ?? [] });
          return tx.query(sql, params);
        },
      }),
    ),
  close: () => db.close(),
};

function occurrence(n: number): Occurrence {
  return {
    projectId,
    eventId: `batch-event-${n}`,
    hashes: [`batch-hash-${n}`],
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

beforeAll(async () => {
  db = await PGliteClient.open(undefined);
  await migrate(db);
  await db.query(`INSERT INTO organizations (slug, name) VALUES ('plans', 'Plans')`);
  const project = await db.query<{ id: number }>(
    `INSERT INTO projects (organization_id, slug, name) SELECT id, 'plans', 'Plans' FROM organizations RETURNING id`,
  );
  projectId = project.rows[0]!.id;
  // ROWS issues with a hash each, and ROWS counted events, as a busy installation's tables hold.
  await db.query(
    `INSERT INTO issues (project_id, short_number, title, culprit, level, type, metadata, first_seen, last_seen, times_seen, status)
     SELECT $1, g, 'ValueError: thing', 'app', 'error', 'error', '{}', now(), now(), 1, 'unresolved' FROM generate_series(1, $2::int) g`,
    [projectId, ROWS],
  );
  await db.query(`UPDATE projects SET issue_counter = $1`, [ROWS]);
  await db.query(
    `INSERT INTO issue_hashes (project_id, hash, issue_id) SELECT project_id, 'old-hash-' || short_number, id FROM issues`,
  );
  await db.query(
    `INSERT INTO processed_events (project_id, event_id, issue_id, is_new_issue, is_regression, is_new_release, count_before, count_after)
     SELECT project_id, 'old-event-' || short_number, id, false, false, false, 0, 1 FROM issues`,
  );
  // Half the batch new issues, half events of 125 existing ones.
  const batch = Array.from({ length: 250 }, (_, n) => ({
    ...occurrence(n),
    hashes: [n % 2 ? `new-hash-${n}` : `old-hash-${n + 1}`],
  }));
  await new PgMetadataStore(noting).recordOccurrences(batch);
}, 120_000); // about 5 s alone; more beside other suites

afterAll(async () => {
  await db?.close();
});

async function planOf(pattern: RegExp): Promise<string> {
  const statement = statements.find(({ sql }) => pattern.test(sql));
  expect(statement, `a statement matching ${pattern}`).toBeDefined();
  const rows = await db.query<Record<string, string>>(`EXPLAIN ${statement!.sql}`, statement!.params);
  return rows.rows.map((row) => Object.values(row)[0]).join('\n');
}

describe('recording a batch of 250 against tables of 20,000 rows', () => {
  it.each(['processed_events', 'issue_hashes'])('looks up %s by its primary key, row by row', async (table) => {
    const shape = await planOf(new RegExp(`^\\s*SELECT[\\s\\S]*\\b${table}\\b`));
    expect(shape).toContain(`Index Scan using ${table}_pkey`);
    expect(shape).not.toContain(`Seq Scan on ${table}`);
  });

  it("updates the batch's issues found by their primary key", async () => {
    const shape = await planOf(/^\s*UPDATE issues/);
    expect(shape).toContain('Index Scan on issues_pkey');
    expect(shape).not.toContain('Seq Scan on issues');
  });
});
