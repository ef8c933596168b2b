// Deleting issues (a project's delete, a bulk delete) locks their rows in id order, as triage
// and snooze expiry do (pg-issue-store.ts). Taken in the table's order instead, a delete that
// had reached issue B while triage held A and wanted B deadlocked, and Postgres aborted one of
// them. Each test reorders the table (A's row rewritten after B's) and plans without indexes,
// so the table's order is what a scan meets first.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../services/adapters/postgres/migrate.ts';
import { PgMetadataStore } from '../../../services/adapters/postgres/pg-metadata-store.ts';
import { PgPoolClient } from '../../../services/adapters/postgres/pg-pool-client.ts';
import { occurrenceMaker, orgWithProject } from '../../../services/adapters/contracts/metadata-fixtures.ts';
import type { Project } from '../../../services/core/ports/tenancy-store.ts';
import { infraSetting } from '../../support/infra-env.ts';
import { withDatabase } from '../../support/postgres-database.ts';

const database = withDatabase(() => infraSetting('ERRATA_POSTGRES_URL'));
let url: string;
let setup: PgPoolClient;
let deleter: PgPoolClient;
let triage: pg.Client;
beforeAll(async () => {
  url = await database.create();
  setup = PgPoolClient.open({ url });
  await migrate(setup);
  // The deleting side plans as it would on a table whose statistics favour a scan.
  const noIndexes = new URL(url);
  noIndexes.searchParams.set('options', '-c enable_indexscan=off -c enable_bitmapscan=off -c enable_indexonlyscan=off');
  deleter = PgPoolClient.open({ url: noIndexes.toString(), maxConnections: 1 });
  triage = new pg.Client({ connectionString: url });
  await triage.connect();
});
afterAll(async () => {
  await triage?.end();
  await deleter?.close();
  await setup?.close();
  await database.drop();
});

const occurrence = occurrenceMaker();

/** A project with issues A < B, B's row first in the table. */
async function twoIssuesOutOfOrder(): Promise<{ project: Project; a: number; b: number }> {
  const metadata = new PgMetadataStore(setup);
  const { project } = await orgWithProject(metadata);
  const [first] = await metadata.recordOccurrences([occurrence(project, { hashes: ['a'] })]);
  const [second] = await metadata.recordOccurrences([occurrence(project, { hashes: ['b'] })]);
  const [a, b] = [first!.issueId, second!.issueId];
  expect(a).toBeLessThan(b);
  await setup.query('UPDATE issues SET title = title || $2 WHERE id = $1', [a, ' (rewritten)']);
  const scanned = await setup.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_indexscan = off');
    await tx.query('SET LOCAL enable_bitmapscan = off');
    return (await tx.query<{ id: number }>('SELECT id FROM issues WHERE project_id = $1', [project.id])).rows;
  });
  expect(scanned.map((r) => r.id)).toEqual([b, a]);
  return { project, a, b };
}

/** Resolves once another session of the test database waits for a row lock. */
async function someoneWaitsForALock(): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  for (let tries = 0; tries < 500; tries++) {
    const { rows } = await setup.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`,
      [name],
    );
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no session came to wait for a lock in 5 s');
}

/**
 * Triage's transaction, locking A and then B as changeIssues does, with `remove` started in
 * between: both must finish, whichever waits.
 */
async function triageAround(a: number, b: number, remove: () => Promise<unknown>): Promise<unknown> {
  await triage.query('BEGIN');
  try {
    await triage.query('SELECT id FROM issues WHERE id = $1 FOR NO KEY UPDATE', [a]);
    const removing = remove();
    removing.catch(() => undefined); // awaited below; a deadlock must not go unhandled meanwhile
    await someoneWaitsForALock();
    await triage.query(`UPDATE issues SET status = 'resolved' WHERE id = $1`, [b]);
    await triage.query('COMMIT');
    return await removing;
  } catch (error) {
    await triage.query('ROLLBACK');
    throw error;
  }
}

describe('issue rows deleted in id order', () => {
  it("a project's delete waits for triage instead of deadlocking with it", async () => {
    const { project, a, b } = await twoIssuesOutOfOrder();
    const removed = await triageAround(a, b, () => new PgMetadataStore(deleter).deleteProject(project.id, new Date()));
    expect(removed).toEqual({ publicKeys: [expect.any(String)] });
    const left = await setup.query('SELECT id FROM issues WHERE project_id = $1', [project.id]);
    expect(left.rows).toEqual([]);
  });

  it('a bulk delete of issues waits for triage instead of deadlocking with it', async () => {
    const { project, a, b } = await twoIssuesOutOfOrder();
    const removed = await triageAround(a, b, () => new PgMetadataStore(deleter).deleteIssues(project.id, [a, b]));
    expect([...(removed as number[])].sort((x, y) => x - y)).toEqual([a, b]);
    const left = await setup.query('SELECT id FROM issues WHERE project_id = $1', [project.id]);
    expect(left.rows).toEqual([]);
  });
});
