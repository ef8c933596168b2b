// Rows that two dispatchers may both write, upserted in one order by every batch: releases and
// environments by (project, name), as tag values are by (issue, key, value), and alerts by
// (rule, channel, dedup key). A batch holding one
// release and waiting for another batch's, which waited for its, deadlocked; Postgres aborted one
// and it was retried after a second. Checked on what the store sends for a batch whose events
// name them in the other order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Occurrence } from '../../core/issues/occurrence.ts';
import { PGliteClient } from '../pglite/pglite-client.ts';
import { migrate } from './migrate.ts';
import { PgAlertStore } from './pg-alert-store.ts';
import { PgMetadataStore } from './pg-metadata-store.ts';
import type { SqlClient, SqlExecutor } from './sql-client.ts';

let db: PGliteClient;
const sent: Array<{ sql: string; params: unknown[] }> = [];

const noting: SqlClient = {
  query: (sql, params) => db.query(sql, params),
  transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) =>
    db.transaction((tx) =>
      work({
        query(sql, params) {
          sent.push({ sql, params: params ?? [] });
          return tx.query(sql, params);
        },
      }),
    ),
  close: () => db.close(),
};

beforeAll(async () => {
  db = await PGliteClient.open(undefined);
  await migrate(db);
});
afterAll(async () => {
  await db?.close();
});

function occurrence(projectId: number, n: number, release: string, environment: string): Occurrence {
  return {
    projectId,
    eventId: `order-${n}`,
    hashes: [`hash-${n}`],
    title: 'Error: x',
    culprit: 'app',
    level: 'error',
    type: 'error',
    metadata: { type: 'Error', value: 'x' },
    timestamp: 1_750_000_000 + n,
    environment,
    release,
    userKey: null,
    tags: {},
  };
}

describe('recording a batch', () => {
  it('upserts releases and environments in (project, name) order, whatever order its events came in', async () => {
    const metadata = new PgMetadataStore(noting);
    const organization = await metadata.ensureOrganization('order', 'Order');
    const projectId = async (slug: string) =>
      (
        await metadata.createProject(
          { organizationId: organization.id, slug, name: slug },
          { publicKey: slug.padEnd(32, '0'), label: slug },
        )
      ).project.id;
    const [first, second] = [await projectId('aaa'), await projectId('bbb')];
    await metadata.recordOccurrences([
      occurrence(second, 1, 'web@2', 'staging'),
      occurrence(first, 2, 'web@2', 'staging'),
      occurrence(first, 3, 'web@10', 'production'),
      occurrence(first, 4, 'web@1', 'development'),
    ]);
    const paramsOf = (table: string) => sent.find(({ sql }) => sql.includes(`INSERT INTO ${table}`))!.params;
    const releases = paramsOf('releases');
    expect([0, 4, 8, 12].map((at) => [releases[at], releases[at + 1]])).toEqual([
      [first, 'web@1'],
      [first, 'web@10'],
      [first, 'web@2'],
      [second, 'web@2'],
    ]);
    expect(paramsOf('project_environments')).toEqual([
      first,
      'development',
      first,
      'production',
      first,
      'staging',
      second,
      'staging',
    ]);
  });

  it('adds alerts in (rule, channel, dedup key) order, whatever order the batch found them in', async () => {
    const organization = await new PgMetadataStore(noting).ensureOrganization('order', 'Order');
    const alerts = new PgAlertStore(db);
    const channel = async (name: string) =>
      (
        await alerts.createChannel({
          organizationId: organization.id,
          name,
          url: 'https://hooks.example.com/x',
          sealedSecret: 's',
        })
      ).id;
    const [one, two] = [await channel('one'), await channel('two')];
    const alert = (channelId: number, dedupKey: string) => ({
      channelId,
      ruleId: null,
      projectId: null,
      dedupKey,
      kind: 'digest' as const,
      body: `${channelId === one ? 'one' : 'two'} ${dedupKey}`,
      status: 'pending' as const,
    });
    const added = await new PgAlertStore(noting).enqueueDeliveries([alert(two, 'a'), alert(one, 'b'), alert(one, 'a')]);
    // Ids are given in the order rows are inserted.
    expect(added.map((d) => d.body)).toEqual(['one a', 'one b', 'two a']);
  });
});
