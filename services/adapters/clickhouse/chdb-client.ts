// Test support: the official client on in-process chdb (current ClickHouse, 26.x), through
// `chdb/connection`, so the adapters' SQL is also checked against what modern servers accept.
// Only tests import this; chdb is a dev dependency. One chdb data directory per process.
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';

// chdb types its connection against @clickhouse/client-common, which the client bundles its own
// copy of: the shapes match at run time, the declarations are merely two distinct copies.
type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

export function createChdbClient(path: string): ClickHouseClient {
  const connection = createChdbConnection({ path }) as unknown as ClientConnection;
  return createClient({ connection, log: { level: ClickHouseLogLevel.OFF } });
}
