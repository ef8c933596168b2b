// A deleted issue's counted event ids stay as tombstones (record-occurrences.ts): a redelivery of
// one of its events is dropped. Only an id counted for an issue tells that: a row without one
// (the first schema's, before counted ids named their issue) is no tombstone, and its event is
// counted as it was before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { occurrenceMaker } from '../contracts/metadata-fixtures.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

describe('counted event ids of deleted issues', () => {
  it('take a row that names no issue for no tombstone', async () => {
    const organization = await stores.metadata.ensureOrganization('default', 'Default');
    const { project } = await stores.metadata.createProject(
      { organizationId: organization.id, slug: 'web', name: 'Web' },
      { publicKey: 'a'.repeat(32), label: 'Default' },
    );
    const occurrence = occurrenceMaker()(project, { hashes: ['old'] });
    await stores.client.query('INSERT INTO processed_events (project_id, event_id) VALUES ($1, $2)', [
      project.id,
      occurrence.eventId,
    ]);
    const [result] = await stores.metadata.recordOccurrences([occurrence]);
    expect(result).not.toHaveProperty('issueDeleted');
    expect(result).toMatchObject({ isNewIssue: true });
  });
});
