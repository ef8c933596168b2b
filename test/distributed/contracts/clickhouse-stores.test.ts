// The ClickHouse stores on the real ClickHouse server (Debian's 18.16, over HTTP with the
// official client), held to the same port contracts and adapter suite that chdb (current
// ClickHouse) passes in the unit suite. Every database is a throwaway one, dropped afterwards.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createClickHouseClient,
  migrateClickHouse,
  openClickHouseStores,
  type ClickHouseStores,
} from '../../../services/adapters/clickhouse/open-clickhouse.ts';
import {
  describeClickHouseLiterals,
  describeClickHouseStores,
  throwawayDatabase,
} from '../../../services/adapters/clickhouse/clickhouse-suites.ts';
import { readLimitSeconds, selectRows } from '../../../services/adapters/clickhouse/clickhouse-io.ts';
import { identifier, raw, sql } from '../../../services/adapters/clickhouse/clickhouse-sql.ts';
import { describeEventStoreContract } from '../../../services/adapters/contracts/event-store.contract.ts';
import { describeLogStoreContract } from '../../../services/adapters/contracts/log-store.contract.ts';
import { UnavailableError } from '../../../services/core/errors.ts';
import { infraSetting } from '../../support/infra-env.ts';
import { newEvent } from '../../support/new-event.ts';
import { startRecordingHttpProxy } from '../../support/recording-http-proxy.ts';

const url = () => infraSetting('ERRATA_CLICKHOUSE_URL');
const database = throwawayDatabase();
let stores: Promise<ClickHouseStores> | undefined;
function shared(): Promise<ClickHouseStores> {
  stores ??= openClickHouseStores({ url: url(), database, batch: { maxWaitMs: 5 } });
  return stores;
}
const literalsClient = () => createClickHouseClient({ url: url() });
let literals: ReturnType<typeof literalsClient> | undefined;

afterAll(async () => {
  await (await stores)?.close();
  await literals?.close();
  const admin = createClickHouseClient({ url: url() });
  await admin.command({ query: sql`DROP DATABASE IF EXISTS ${identifier(database)}`.text });
  await admin.close();
});

describeEventStoreContract('ClickHouse 18.16', async () => (await shared()).events);
describeLogStoreContract('ClickHouse 18.16', async () => (await shared()).logs);
describeClickHouseStores('18.16', () => createClickHouseClient({ url: url() }), throwawayDatabase());
describeClickHouseLiterals('18.16', async () => (literals ??= literalsClient()));

describe('ClickHouse 18.16 over HTTP', () => {
  it('ensures the schema from connection settings alone (errata migrate)', async () => {
    const fresh = throwawayDatabase();
    await migrateClickHouse({ url: url(), database: fresh });
    await migrateClickHouse({ url: url(), database: fresh });
    const stores = await openClickHouseStores({ url: url(), database: fresh, ensureSchema: false });
    try {
      expect(await stores.events.countEventsForIssue(1, 1)).toBe(0);
      expect((await stores.logs.searchLogs({ projectId: 1, limit: 1 })).items).toEqual([]);
    } finally {
      await stores.close();
      const admin = createClickHouseClient({ url: url() });
      await admin.command({ query: sql`DROP DATABASE IF EXISTS ${identifier(fresh)}`.text });
      await admin.close();
    }
  });

  it('sends INSERT bodies as they are by default and gzipped when asked, and reads either back', async () => {
    for (const compression of [undefined, 'none', 'gzip'] as const) {
      const proxy = await startRecordingHttpProxy(url());
      const stores = await openClickHouseStores({ url: proxy.url, database, compression, batch: { maxWaitMs: 5 } });
      try {
        const eventId = randomUUID().replace(/-/g, '');
        const payload = {
          event_id: eventId,
          message: `sent with compression ${compression}`,
          extra: { text: 'é'.repeat(5_000) },
        };
        await stores.events.insertEvents([
          newEvent(
            stores.events,
            { projectId: 424_242, eventId, issueId: 1, timestamp: 1_700_000_000, title: 'Error: compressed?' },
            payload,
          ),
        ]);
        expect((await stores.events.getEvent(424_242, eventId))?.payload).toEqual(payload);
        const inserts = proxy.requests.filter((r) =>
          new URL(r.url, proxy.url).searchParams.get('query')?.startsWith('INSERT INTO'),
        );
        expect(inserts.map((r) => r.headers['content-encoding'])).toEqual([compression === 'gzip' ? 'gzip' : undefined]);
      } finally {
        await stores.close();
        await proxy.close();
      }
    }
  });

  it('takes a refusal of a database not migrated yet for unavailable, so the batch is kept and retried', async () => {
    // 18.16 words its errors without the code's name, from which the client reads the code: such
    // refusals were taken for the records' fault, and the records dropped.
    const stores = await openClickHouseStores({
      url: url(),
      database: throwawayDatabase(),
      ensureSchema: false,
      batch: { maxWaitMs: 5 },
    });
    try {
      const event = newEvent(stores.events, { projectId: 1, issueId: 1, timestamp: 1_700_000_000, title: 'Error: early' });
      await expect(stores.events.insertEvents([event])).rejects.toBeInstanceOf(UnavailableError);
      await expect(stores.events.getEvent(1, event.eventId)).rejects.toBeInstanceOf(UnavailableError);
    } finally {
      await stores.close();
    }
  });

  it('limits the time of its reads on the server, a second under the request timeout, and not its INSERTs', async () => {
    await shared(); // the tables exist
    const proxy = await startRecordingHttpProxy(url());
    const stores = await openClickHouseStores({
      url: proxy.url,
      database,
      requestTimeoutMs: 10_000,
      ensureSchema: false,
      batch: { maxWaitMs: 5 },
    });
    try {
      const event = newEvent(stores.events, {
        projectId: 434_343,
        issueId: 1,
        timestamp: 1_700_000_000,
        title: 'Error: limited',
      });
      await stores.events.insertEvents([event]);
      expect(await stores.events.countEventsForIssue(434_343, 1)).toBe(1);
      // An INSERT names itself in the URL; a SELECT travels in the body.
      const sent = proxy.requests.map((r) => new URL(r.url, proxy.url).searchParams);
      const limits = (p: URLSearchParams) => [p.get('max_execution_time'), p.get('timeout_before_checking_execution_speed')];
      expect(sent.filter((p) => !p.has('query')).map(limits)).toEqual([['9', '0']]);
      expect(sent.filter((p) => p.get('query')?.startsWith('INSERT INTO')).map(limits)).toEqual([[null, null]]);
    } finally {
      await stores.close();
      await proxy.close();
    }
  });

  it('stops a read on the server when the client gives up on it, and says to narrow it', async () => {
    const client = createClickHouseClient({ url: url(), requestTimeoutMs: 3_000 });
    const admin = createClickHouseClient({ url: url() });
    const marker = `slow_read_${randomUUID().replace(/-/g, '')}`;
    const running = async () => {
      const rows = await selectRows<{ n: string }>(
        admin,
        raw(`SELECT count() AS n FROM system.processes WHERE query LIKE '%${marker}%' AND query NOT LIKE '%system.processes%'`),
      );
      return Number(rows[0]?.n);
    };
    try {
      // A hundred one-row blocks of a tenth of a second: 10 s, past the 3 s the client waits.
      // Before, the client gave up at 3 s and the server read on for the other 7.
      const slow = raw(
        `SELECT count() AS n, '${marker}' AS marker FROM (SELECT sleepEachRow(0.1) FROM numbers(100)) SETTINGS max_block_size = 1`,
      );
      await expect(selectRows(client, slow, readLimitSeconds(3_000))).rejects.toThrow(
        /stopped this read at its time limit \(2 s\): a search reads less over a shorter time window/,
      );
      await expect.poll(running, { timeout: 2_000, interval: 100 }).toBe(0);
    } finally {
      await client.close();
      await admin.close();
    }
  });

  it('ping() rejects when the server is unreachable', async () => {
    const stores = await openClickHouseStores({ url: 'http://127.0.0.1:1', database, ensureSchema: false });
    await expect(stores.ping()).rejects.toThrow(/did not answer/);
    await stores.close();
    await (await shared()).ping();
  });
});
