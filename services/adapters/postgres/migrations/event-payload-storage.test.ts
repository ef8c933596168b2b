// Migration 0018 stores event payloads out of line and uncompressed: they are deflated before
// they reach the database, so Postgres's own compression attempt is CPU spent for nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../../test/support/embedded-stores.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

describe('migration 0018-event-payload-storage', () => {
  it('leaves payload_deflated to be stored out of line without compression (EXTERNAL)', async () => {
    const result = await stores.client.query<{ attstorage: string }>(
      `SELECT attstorage FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'payload_deflated'`,
    );
    expect(result.rows).toEqual([{ attstorage: 'e' }]);
  });
});
