// The embedded database has no autovacuum: the server gathers the planner's statistics and
// vacuums itself (runtime/embedded/table-maintenance.ts), or the Issues page of a big project
// sorts every issue instead of reading its index, dead rows pile up, and counting a loud issue's
// events visits every one of them in the heap. Here: after a server has run, every table has been
// analyzed, and the events that were there when it started are marked visible to all.
import { afterAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { embeddedDatabaseDir } from '../../services/runtime/embedded/database-dir.ts';
import { eventually, provision, removeDir, startServer, initializedDataDir } from '../support/standalone-server.ts';
import { envelopeUrlOf, eventEnvelope, newEventId, rawRequest } from '../support/raw-http.ts';
import { waitForIssue } from '../support/issues.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

describe('the embedded database', () => {
  it('has its tables analyzed and vacuumed by the server, so the planner knows their sizes and can skip the heap', async () => {
    const dir = await initializedDataDir();
    dirs.push(dir);
    const server = await startServer({ dataDir: dir });
    const p = await provision(server, 'Stats App');
    const sent = await rawRequest(envelopeUrlOf(server, p), {
      body: eventEnvelope({ event_id: newEventId(), message: 'counted' }),
    });
    expect(sent.status).toBe(200);
    await waitForIssue(server, p, 'counted');
    expect(await server.stop()).toBe(0);
    // The job runs as a server starts: this one finds the event stored by the first.
    const again = await startServer({ dataDir: dir });
    expect(await again.stop()).toBe(0);

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
      const { rows } = await db.query<{ relpages: number; relallvisible: number }>(
        "SELECT relpages, relallvisible FROM pg_class WHERE relname = 'events' AND relnamespace = 'public'::regnamespace",
      );
      expect(rows[0]!.relpages).toBeGreaterThan(0);
      expect(rows[0]!.relallvisible).toBe(rows[0]!.relpages);
    } finally {
      await db.close();
    }
  });
});
