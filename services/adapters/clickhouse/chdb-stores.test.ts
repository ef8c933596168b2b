// The ClickHouse stores on in-process chdb (current ClickHouse), held to the port contracts and
// to the adapter's own suite. One chdb data directory for the file (chdb allows one per
// process); every store set gets its own database. 18.16 runs the same suites in
// test/distributed/contracts/clickhouse-stores.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeEventStoreContract } from '../contracts/event-store.contract.ts';
import { describeLogStoreContract } from '../contracts/log-store.contract.ts';
import { createChdbClient } from './chdb-client.ts';
import { describeClickHouseStores } from './clickhouse-suites.ts';
import { openClickHouseStores, openClickHouseStoresOn, type ClickHouseStores } from './open-clickhouse.ts';

const dir = await mkdtemp(join(tmpdir(), 'errata-chdb-'));
let contractStores: Promise<ClickHouseStores> | undefined;
function shared(): Promise<ClickHouseStores> {
  contractStores ??= openClickHouseStoresOn(createChdbClient(dir), { database: 'errata_contracts', batch: { maxWaitMs: 5 } });
  return contractStores;
}
afterAll(async () => {
  await (await contractStores)?.close();
  await rm(dir, { recursive: true, force: true });
});

describeEventStoreContract('ClickHouse (chdb)', async () => (await shared()).events);
describeLogStoreContract('ClickHouse (chdb)', async () => (await shared()).logs);
describeClickHouseStores('chdb', () => createChdbClient(dir), 'errata_adapter');

describe('openClickHouseStores over HTTP', () => {
  it('rejects when the server is unreachable, at open and at ping', async () => {
    await expect(
      openClickHouseStores({ url: 'http://127.0.0.1:1', database: 'errata', requestTimeoutMs: 2_000 }),
    ).rejects.toThrow();
    const stores = await openClickHouseStores({ url: 'http://127.0.0.1:1', database: 'errata', ensureSchema: false });
    await expect(stores.ping()).rejects.toThrow(/did not answer/);
    await expect(stores.events.ping()).rejects.toThrow();
    await stores.close();
  });
});
