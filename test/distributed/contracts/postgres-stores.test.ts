// The SQL stores on a real Postgres server (`pg`), held to the same port contracts PGlite
// passes, on a database of their own that is dropped afterwards. Also: migrations are
// idempotent and safe to run concurrently.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { UnavailableError } from '../../../services/core/errors.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAlertStoreContract } from '../../../services/adapters/contracts/alert-store.contract.ts';
import { describeEventStoreContract } from '../../../services/adapters/contracts/event-store.contract.ts';
import { describeLogStoreContract } from '../../../services/adapters/contracts/log-store.contract.ts';
import { describeMetadataStoreContract } from '../../../services/adapters/contracts/metadata-store.contract.ts';
import { describeSqlClientContract } from '../../../services/adapters/contracts/sql-client.contract.ts';
import { describeUserStoreContract } from '../../../services/adapters/contracts/user-store.contract.ts';
import { migrate } from '../../../services/adapters/postgres/migrate.ts';
import { MIGRATIONS } from '../../../services/adapters/postgres/migrations/index.ts';
import { PgAlertStore } from '../../../services/adapters/postgres/pg-alert-store.ts';
import { PgEventStore } from '../../../services/adapters/postgres/pg-event-store.ts';
import { PgLogStore } from '../../../services/adapters/postgres/pg-log-store.ts';
import { PgMetadataStore } from '../../../services/adapters/postgres/pg-metadata-store.ts';
import { PgPoolClient } from '../../../services/adapters/postgres/pg-pool-client.ts';
import { PgUserStore } from '../../../services/adapters/postgres/pg-user-store.ts';
import { recordOccurrences } from '../../../services/adapters/postgres/record-occurrences.ts';
import type { Occurrence } from '../../../services/core/issues/occurrence.ts';
import { infraSetting } from '../../support/infra-env.ts';
import { newEvent } from '../../support/new-event.ts';
import { withDatabase } from '../../support/postgres-database.ts';

const database = withDatabase(() => infraSetting('ERRATA_POSTGRES_URL'));
let client: PgPoolClient;
beforeAll(async () => {
  client = PgPoolClient.open({ url: await database.create() });
  await migrate(client);
});
afterAll(async () => {
  await client?.close();
  await database.drop();
});

describeSqlClientContract('Postgres', async () => client);
describeMetadataStoreContract('Postgres', async () => new PgMetadataStore(client));
describeEventStoreContract('Postgres', async () => new PgEventStore(client));
describeLogStoreContract('Postgres', async () => new PgLogStore(client));
describeAlertStoreContract('Postgres', async () => ({ alerts: new PgAlertStore(client), metadata: new PgMetadataStore(client) }));
describeUserStoreContract('Postgres', async () => new PgUserStore(client));

describe('migrations on Postgres', () => {
  it('a second run applies nothing', async () => {
    const report = await migrate(client);
    expect(report.applied).toEqual([]);
    expect(report.alreadyApplied).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('concurrent runs on a fresh database wait for each other instead of colliding', async () => {
    const fresh = withDatabase(() => infraSetting('ERRATA_POSTGRES_URL'));
    const url = await fresh.create();
    const clients = [1, 2, 3].map(() => PgPoolClient.open({ url }));
    try {
      const reports = await Promise.all(clients.map((c) => migrate(c)));
      expect(reports.flatMap((r) => r.applied).sort()).toEqual(MIGRATIONS.map((m) => m.version).sort());
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await fresh.drop();
    }
  });
});

describe('PgPoolClient', () => {
  it('rolls a failed transaction back and keeps serving', async () => {
    await client.query('CREATE TABLE IF NOT EXISTS pool_probe (id int PRIMARY KEY)');
    await expect(
      client.transaction(async (tx) => {
        await tx.query('INSERT INTO pool_probe VALUES (1)');
        await tx.query('INSERT INTO pool_probe VALUES (1)');
      }),
    ).rejects.toThrow(/duplicate key/);
    expect((await client.query('SELECT count(*) AS n FROM pool_probe')).rows).toEqual([{ n: 0 }]);
  });

  it('rejects quickly when the server is unreachable', async () => {
    const dead = PgPoolClient.open({
      url: `postgres://postgres@127.0.0.1:1/none?x=${randomBytes(2).toString('hex')}`,
      connectTimeoutMs: 2_000,
    });
    await expect(dead.query('SELECT 1')).rejects.toThrow();
    await dead.close();
  });

  it('survives the server dropping a connection in the middle of a transaction, answering unavailable', async () => {
    // A TCP hop we can cut, as a Postgres restart or failover would.
    const target = new URL(await database.url());
    const sockets = new Set<Socket>();
    const hop = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
    const viaHop = new URL(target.toString());
    viaHop.port = String((hop.address() as { port: number }).port);
    const errors: Error[] = [];
    const fragile = PgPoolClient.open({ url: viaHop.toString(), onError: (error) => errors.push(error) });
    try {
      const attempt = fragile.transaction(async (tx) => {
        await tx.query('SELECT 1');
        for (const socket of sockets) socket.destroy();
        await tx.query('SELECT 2');
      });
      await expect(attempt).rejects.toBeInstanceOf(UnavailableError);
      // The pool goes on with a new connection once the server is reachable again.
      expect((await fragile.query<{ n: number }>('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
    } finally {
      await fragile.close();
      await new Promise<void>((resolve) => hop.close(() => resolve()));
    }
  });
});

/** Resolves once some statement of this database waits for a lock. */
async function someoneWaitsForALock(): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const waiting = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (waiting.rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no statement waited for a lock within 10 s');
}

// Two dispatchers may record one event at once (a rebalance, or an SDK's retry published to
// another partition), and with different hashes: one delivery symbolicated, the other not, or
// grouping rules changed between. The event is counted once. The first is held open before its
// commit, as a dispatcher's batch can be.
describe('one event recorded by two batches at once, with different hashes', () => {
  it('counts it once, in the issue of the batch that committed first', async () => {
    const metadata = new PgMetadataStore(client);
    const organization = await metadata.ensureOrganization(`race-${randomBytes(4).toString('hex')}`, 'Race');
    const { project } = await metadata.createProject(
      { organizationId: organization.id, slug: 'race', name: 'Race' },
      { publicKey: randomBytes(16).toString('hex'), label: 'race' },
    );
    const eventId = randomBytes(16).toString('hex');
    const occurrence = (hash: string): Occurrence => ({
      projectId: project.id,
      eventId,
      hashes: [hash],
      title: 'TypeError: x is undefined',
      culprit: 'app.js',
      level: 'error',
      type: 'error',
      metadata: { type: 'TypeError', value: 'x is undefined' },
      timestamp: Date.now() / 1000,
      environment: null,
      release: null,
      userKey: null,
      tags: {},
    });
    let commit!: () => void;
    let recorded!: () => void;
    const firstRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const first = client.transaction(async (tx) => {
      const results = await recordOccurrences(tx, [occurrence('a'.repeat(32))]);
      recorded();
      await new Promise<void>((resolve) => (commit = resolve));
      return results;
    });
    await firstRecorded;
    const second = client.transaction((tx) => recordOccurrences(tx, [occurrence('b'.repeat(32))]));
    await someoneWaitsForALock();
    commit();
    const [[counted], [again]] = await Promise.all([first, second]);
    expect(counted).toMatchObject({ isDuplicate: false, isNewIssue: true });
    expect(again).toMatchObject({ isDuplicate: true, issueId: counted!.issueId });
    const issues = await client.query<{ times_seen: number }>('SELECT times_seen FROM issues WHERE project_id = $1', [
      project.id,
    ]);
    expect(issues.rows).toEqual([{ times_seen: 1 }]);
  });
});

// issue_event_hours is kept beside the events it counts (event-hours.ts). Postgres, unlike the
// embedded database, runs a batch's transaction beside a deletion's: a batch of old events that
// commits between the deletion's DELETE of events and its DELETE of counts must not leave events
// that no count holds. Here the batch is SQL on a connection of its own, held open at the point
// where its count is written, as insertEvents leaves it before committing.
describe('event counts on Postgres beside a batch that commits during a deletion', () => {
  const ISSUE = 7;
  const at = Date.UTC(1990, 0, 1, 0, 30) / 1000;
  const deletions = [
    ['retention', (store: PgEventStore) => store.deleteEventsBefore(Date.UTC(1991, 0, 1) / 1000)],
    ["an issue's deletion", (store: PgEventStore, project: number) => store.deleteEventsForIssues(project, [ISSUE])],
  ] as const;

  it.each(deletions)('%s counts what it leaves', async (_, deletion) => {
    const store = new PgEventStore(client);
    const project = 900_000 + Math.floor(Math.random() * 100_000);
    const stored = randomBytes(16).toString('hex');
    await store.insertEvents([newEvent(store, { projectId: project, eventId: stored, issueId: ISSUE, timestamp: at })]);

    let commit!: () => void;
    let written!: () => void;
    const countWritten = new Promise<void>((resolve) => (written = resolve));
    const batch = client.transaction(async (tx) => {
      // A copy of the stored event under another id, and its count: what a batch's INSERTs write.
      await tx.query(
        `INSERT INTO events SELECT (jsonb_populate_record(e, jsonb_build_object('event_id', $3::text))).* FROM events e
         WHERE project_id = $1 AND event_id = $2`,
        [project, stored, randomBytes(16).toString('hex')],
      );
      await tx.query(
        `INSERT INTO issue_event_hours (project_id, hour, issue_id, count) VALUES ($1, $2, $3, 1)
         ON CONFLICT (project_id, hour, issue_id) DO UPDATE SET count = issue_event_hours.count + 1`,
        [project, Math.floor(at / 3600), ISSUE],
      );
      written();
      await new Promise<void>((resolve) => (commit = resolve));
    });
    await countWritten;
    const deleting = deletion(store, project);
    await someoneWaitsForALock();
    commit();
    await batch;
    await deleting;

    const left = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [project]);
    const counted = await store.countEventsByIssue([project], at - 3600, at + 3600);
    expect(counted.get(ISSUE) ?? 0).toBe(left.rows[0]!.n);
  });
});
