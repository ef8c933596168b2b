// PgLogStore's INSERT of a full chunk of records stays prepared (its text is the same each time);
// what every LogStore answers is held by the contract, the histogram's bound by
// pg-log-volume.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import type { LogRecord } from '../../core/logs/log-record.ts';

let stores: EmbeddedStores;

beforeAll(async () => {
  stores = await openEmbeddedStores();
});

afterAll(async () => {
  await stores.close();
});

const record = (n: number): LogRecord => ({
  id: `q1:${n}`,
  projectId: 1,
  timestamp: 1_800_000_000 + n,
  observedAt: 1_800_000_000 + n,
  traceId: null,
  spanId: null,
  level: 'info',
  severityNumber: 9,
  body: `served request ${n}`,
  attributes: { n: { type: 'integer', value: n } },
  release: null,
  environment: null,
});

describe('PgLogStore', () => {
  it('keeps the INSERT of a full chunk of records prepared, and runs a shorter one unnamed', async () => {
    // Chunks of 100 and one of 30, twice: past the fifth run, where Postgres may plan the prepared
    // statement generically, and the second time every record a duplicate, not counted again.
    const records = Array.from({ length: 730 }, (_, n) => record(n));
    await stores.logs.insertLogs(records);
    await stores.logs.insertLogs(records);
    const { rows } = await stores.client.query<{ parameters: number }>(
      `SELECT cardinality(parameter_types) AS parameters FROM pg_prepared_statements
       WHERE statement LIKE 'WITH inserted AS (%INSERT INTO logs%'`,
    );
    expect(rows.map((r) => r.parameters)).toEqual([100 * 12]);
    const stored = await stores.client.query<{ n: number; volume: number }>(
      `SELECT (SELECT count(*)::integer FROM logs) AS n, (SELECT sum(records)::integer FROM log_volume) AS volume`,
    );
    expect(stored.rows).toEqual([{ n: 730, volume: 730 }]);
  });
});
