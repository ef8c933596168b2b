// The embedded database has no autovacuum: the server gathers the planner's statistics itself
// (runtime/embedded/table-statistics.ts), or the Issues page of a big project sorts every issue
// instead of reading its index. Here: after a server has run, every table has been analyzed.
import { afterAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { embeddedDatabaseDir } from '../../services/runtime/compose.ts';
import { eventually, provision, removeDir, startServer, tempDataDir } from '../support/standalone-server.ts';
import { envelopeUrlOf, eventEnvelope, newEventId, rawRequest } from '../support/raw-http.ts';
import { waitForIssue } from '../support/issues.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

describe('the embedded database', () => {
  it('has its tables analyzed by the server, so the planner knows their sizes', async () => {
    const dir = await tempDataDir();
    dirs.push(dir);
    const server = await startServer({ dataDir: dir });
    const p = await provision(server, 'Stats App');
    const sent = await rawRequest(envelopeUrlOf(server, p), { body: eventEnvelope({ event_id: newEventId(), message: 'counted' }) });
    expect(sent.status).toBe(200);
    await waitForIssue(server, p, 'counted');
    expect(await server.stop()).toBe(0);

    const db = await PGliteClient.open(embeddedDatabaseDir(dir));
    try {
      // reltuples is -1 for a table never analyzed (PostgreSQL 14 and later).
      const never = await eventually(async () => {
        const { rows } = await db.query<{ relname: string }>(
          "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace AND reltuples < 0",
        );
        return rows;
      }, 'the catalog');
      expect(never.map((r) => r.relname)).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
