// Migration 0008 fills project_environments from the issues already recorded, so an instance
// upgraded from version 7 lists its environments at once; new events add theirs as they come.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../../test/support/embedded-stores.ts';
import type { Occurrence } from '../../../core/issues/occurrence.ts';
import { migrate } from '../migrate.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

const occurrence = (projectId: number, eventId: string, hash: string, environment: string | null): Occurrence => ({
  projectId,
  eventId,
  hashes: [hash],
  title: `Error ${hash}`,
  culprit: '',
  level: 'error',
  type: 'error',
  metadata: {},
  timestamp: 1_700_000_000,
  environment,
  release: null,
  userKey: null,
  tags: {},
});

describe('migration 0008-project-environments', () => {
  it("lists the environments of the issues recorded before it, each project's own", async () => {
    const organization = await stores.metadata.ensureOrganization('envs', 'Envs');
    const make = (slug: string, publicKey: string) =>
      stores.metadata.createProject({ organizationId: organization.id, slug, name: slug }, { publicKey, label: 'Default' });
    const { project: a } = await make('env-a', 'a'.repeat(32));
    const { project: b } = await make('env-b', 'b'.repeat(32));
    await stores.metadata.recordOccurrences([
      occurrence(a.id, '1'.repeat(32), 'x', 'production'),
      occurrence(a.id, '2'.repeat(32), 'y', 'staging'),
      occurrence(a.id, '3'.repeat(32), 'y', null),
      occurrence(b.id, '4'.repeat(32), 'z', 'qa'),
    ]);
    expect(await stores.metadata.listEnvironments(a.id, 10)).toEqual(['production', 'staging']);

    // As a version-7 database was: the issues and their environments, no table.
    await stores.client.query('DROP TABLE project_environments');
    await stores.client.query("DELETE FROM schema_migrations WHERE version = '0008-project-environments'");
    expect((await migrate(stores.client)).applied).toEqual(['0008-project-environments']);
    expect(await stores.metadata.listEnvironments(a.id, 10)).toEqual(['production', 'staging']);
    expect(await stores.metadata.listEnvironments(b.id, 10)).toEqual(['qa']);
  });
});
