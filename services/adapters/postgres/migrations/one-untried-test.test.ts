// Migration 0031 makes "one untried test per channel" a unique index. Tests queued twice before
// it (the old check let two concurrent requests through) are settled first, the earliest kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../../test/support/embedded-stores.ts';
import { splitStatements } from '../migrate.ts';
import oneUntriedTest from './0031-one-untried-test.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

describe('migration 0031-one-untried-test', () => {
  it('keeps the earliest of the untried tests a channel held, and tried ones and alerts', async () => {
    const org = await stores.metadata.ensureOrganization('org-untried', 'Org');
    const channel = await stores.alerts.createChannel({
      organizationId: org.id,
      name: 'ops',
      url: 'https://h.example/x',
      sealedSecret: 'sealed',
    });
    await stores.client.query('DROP INDEX alert_deliveries_one_untried_test');
    const insert = (kind: string, attempts: number) =>
      stores.client.query<{ id: string }>(
        `INSERT INTO alert_deliveries (channel_id, kind, body, status, attempts) VALUES ($1, $2, '{}', 'pending', $3) RETURNING id`,
        [channel.id, kind, attempts],
      );
    const [first, , tried, alert] = await Promise.all([
      insert('test', 0),
      insert('test', 0),
      insert('test', 1),
      insert('new_issue', 0),
    ]).then((results) => results.map((r) => r.rows[0]!.id));

    for (const statement of splitStatements(oneUntriedTest)) await stores.client.query(statement);

    const left = await stores.client.query<{ id: string }>('SELECT id FROM alert_deliveries WHERE channel_id = $1 ORDER BY id', [
      channel.id,
    ]);
    expect(left.rows.map((r) => r.id)).toEqual([first, tried, alert]);
    await expect(insert('test', 0)).rejects.toThrow(/alert_deliveries_one_untried_test/);
  });
});
