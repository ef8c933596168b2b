// Accepted means durable: every event acknowledged with 200 is processed exactly once, even
// when the server is killed with SIGKILL right after the burst; SIGTERM finishes queued work
// before exiting 0. Counts are read back from the read API and from the database itself.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { embeddedDatabaseDir } from '../../services/runtime/compose.ts';
import { listIssues } from '../support/issues.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import {
  eventually,
  provision,
  removeDir,
  startServer,
  tempDataDir,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

/** Sends `count` events, `concurrency` at a time, over 5 fingerprints; returns the acknowledged ids. */
async function burst(server: StandaloneServer, p: Provisioned, count: number, concurrency = 16): Promise<string[]> {
  const url = `${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`;
  const acknowledged: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++;
        const eventId = randomUUID().replace(/-/g, '');
        const response = await rawRequest(url, {
          body: eventEnvelope({ event_id: eventId, message: `Burst ${n % 5}`, fingerprint: [`burst-${n % 5}`] }),
        });
        if (response.status === 200) acknowledged.push(eventId);
      }
    }),
  );
  return acknowledged;
}

async function storedEventIds(dataDir: string): Promise<{ events: string[]; processed: number; counted: number }> {
  const db = await PGliteClient.open(embeddedDatabaseDir(dataDir));
  try {
    const events = await db.query<{ event_id: string }>('SELECT event_id FROM events');
    const processed = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM processed_events');
    const counted = await db.query<{ n: number }>('SELECT coalesce(sum(times_seen), 0)::int AS n FROM issues');
    return { events: events.rows.map((r) => r.event_id), processed: processed.rows[0]!.n, counted: counted.rows[0]!.n };
  } finally {
    await db.close();
  }
}

const sum = (issues: Array<{ count: number }>) => issues.reduce((total, issue) => total + issue.count, 0);

describe('durability', () => {
  it('processes every acknowledged event exactly once after kill -9 and a restart', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    const first = await startServer({ dataDir });
    const p = await provision(first, 'Durable');
    const acknowledged = await burst(first, p, 400);
    expect(acknowledged).toHaveLength(400);
    await first.kill();

    const second = await startServer({ dataDir });
    const issues = await eventually(
      async () => {
        const list = await listIssues(second, p);
        return sum(list) >= acknowledged.length ? list : undefined;
      },
      'every acknowledged event to be processed after the restart',
      120_000,
    );
    expect(sum(issues)).toBe(400);
    expect(issues.map((i) => i.count).sort()).toEqual([80, 80, 80, 80, 80]);
    expect(await second.stop()).toBe(0);

    const stored = await storedEventIds(dataDir);
    expect(stored.events.sort()).toEqual([...acknowledged].sort());
    expect(stored.processed).toBe(400);
    expect(stored.counted).toBe(400);
  });

  it('finishes queued work on SIGTERM, exits 0, and resumes cleanly', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    const server = await startServer({ dataDir });
    const p = await provision(server, 'Graceful');
    const acknowledged = await burst(server, p, 300);
    expect(await server.stop()).toBe(0);
    expect(server.output()).not.toMatch(/"level":"(error|fatal)"/);

    const stored = await storedEventIds(dataDir);
    expect(stored.events.sort()).toEqual([...acknowledged].sort());
    expect(stored.counted).toBe(300);

    const restarted = await startServer({ dataDir });
    expect(sum(await listIssues(restarted, p))).toBe(300);
    expect(await restarted.stop()).toBe(0);
  });
});
