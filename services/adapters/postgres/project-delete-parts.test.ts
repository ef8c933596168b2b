// A large project's delete: its issues go in parts, each a transaction of its own, before the
// project row (pg-tenancy-store.ts); one cascade over all of them could outrun the statement timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { occurrenceMaker } from '../contracts/metadata-fixtures.ts';
import { PgTenancyStore } from './pg-tenancy-store.ts';
import type { SqlClient } from './sql-client.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

/** The database, noting how many issues each transaction's DELETE FROM issues deleted. */
function notingIssueDeletes(db: SqlClient, parts: number[]): SqlClient {
  return {
    query: (sql, params) => db.query(sql, params),
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          async query<T>(sql: string, params?: unknown[]) {
            const result = await tx.query<T>(sql, params);
            if (/^\s*DELETE FROM issues\b/.test(sql)) parts.push(result.affectedRows);
            return result;
          },
        }),
      ),
    close: () => db.close(),
  };
}

describe("a project's delete", () => {
  it('deletes its issues a thousand per transaction, then the project', async () => {
    const organization = await stores.metadata.ensureOrganization('default', 'Default');
    const { project } = await stores.metadata.createProject(
      { organizationId: organization.id, slug: 'large', name: 'Large' },
      { publicKey: 'l'.repeat(32), label: 'Default' },
    );
    const occurrence = occurrenceMaker();
    await stores.metadata.recordOccurrences(Array.from({ length: 2500 }, (_, i) => occurrence(project, { hashes: [`h${i}`] })));
    const parts: number[] = [];
    const deleted = await new PgTenancyStore(notingIssueDeletes(stores.client, parts)).deleteProject(project.id, new Date());
    expect(deleted?.publicKeys).toEqual(['l'.repeat(32)]);
    expect(parts).toEqual([1000, 1000, 500]);
    expect(await stores.metadata.countIssues({ projectId: project.id, status: 'all' })).toBe(0);
    expect(await stores.metadata.getProject(project.id)).toBeUndefined();
  });
});
