// Accepted means durable: every event acknowledged with 200 is processed exactly once, even
// when the server is killed with SIGKILL after or in the middle of a burst; SIGTERM finishes queued work
// before exiting 0. Counts are read back from the read API and from the database itself. Payload
// bytes written past the last commit are cut off at the next start.
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { appendFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { embeddedDatabaseDir, embeddedPayloadDir } from '../../services/runtime/embedded/database-dir.ts';
import { listIssues } from '../support/issues.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import {
  eventually,
  freePort,
  loggedLine,
  REPO_ROOT,
  tempDataDir,
  provision,
  removeDir,
  startServer,
  initializedDataDir,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

/**
 * Sends `count` events, `concurrency` at a time, over 5 fingerprints; returns the ids
 * acknowledged with 200 (a worker stops at its first failed request: the server is gone).
 */
async function burst(
  server: StandaloneServer,
  p: Provisioned,
  count: number,
  options: { concurrency?: number; onAck?: (acknowledged: number) => void } = {},
): Promise<string[]> {
  const url = `${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`;
  const acknowledged: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency ?? 16 }, async () => {
      while (next < count) {
        const n = next++;
        const eventId = randomUUID().replace(/-/g, '');
        const body = eventEnvelope({ event_id: eventId, message: `Burst ${n % 5}`, fingerprint: [`burst-${n % 5}`] });
        const response = await rawRequest(url, { body }).catch(() => undefined);
        if (!response) return;
        if (response.status === 200) {
          acknowledged.push(eventId);
          options.onAck?.(acknowledged.length);
        }
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
    const dataDir = await initializedDataDir();
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

  it('keeps every acknowledged event when kill -9 lands in the middle of a burst', async () => {
    const dataDir = await initializedDataDir();
    dirs.push(dataDir);
    const first = await startServer({ dataDir });
    const p = await provision(first, 'Mid burst');
    let killed: Promise<void> | undefined;
    // Killed while requests are in flight, appends half written and the queue unprocessed.
    const acknowledged = await burst(first, p, 5000, {
      concurrency: 32,
      onAck: (n) => {
        if (n === 600) killed = first.kill();
      },
    });
    await killed;
    expect(acknowledged.length).toBeGreaterThanOrEqual(600);
    expect(acknowledged.length).toBeLessThan(5000);

    const second = await startServer({ dataDir });
    const storedAll = await eventually(
      async () => (sum(await listIssues(second, p)) >= acknowledged.length ? true : undefined),
      'the restarted server to process the backlog',
      60_000,
    );
    expect(storedAll).toBe(true);
    expect(await second.stop()).toBe(0);

    // Every acknowledged event is stored; anything else stored was written just before the
    // kill but never acknowledged. Each stored event is counted exactly once.
    const stored = await storedEventIds(dataDir);
    const storedSet = new Set(stored.events);
    expect(acknowledged.filter((id) => !storedSet.has(id))).toEqual([]);
    expect(stored.counted).toBe(stored.events.length);
    expect(stored.processed).toBe(stored.events.length);
  });

  it('finishes queued work on SIGTERM, exits 0, and resumes cleanly', async () => {
    const dataDir = await initializedDataDir();
    dirs.push(dataDir);
    const server = await startServer({ dataDir });
    const p = await provision(server, 'Graceful');
    const acknowledged = await burst(server, p, 300);
    expect(await server.stop()).toBe(0);
    expect(server.output()).not.toMatch(/"level":"(error|fatal)"/);

    const stored = await storedEventIds(dataDir);
    expect(stored.events.sort()).toEqual([...acknowledged].sort());
    expect(stored.counted).toBe(300);

    // A batch's payloads written after the last commit, as a crash between the two leaves them:
    // no row will refer to them, and the next start cuts them off.
    const payloads = embeddedPayloadDir(dataDir);
    const newest = readdirSync(payloads)
      .filter((file) => file.endsWith('.seg'))
      .sort()
      .at(-1)!;
    const committedSize = statSync(join(payloads, newest)).size;
    appendFileSync(join(payloads, newest), randomBytes(5000));

    const restarted = await startServer({ dataDir, env: { ERRATA_LOG_LEVEL: 'info' } });
    expect(await loggedLine(restarted, 'event payloads no committed batch refers to cut off')).toMatchObject({
      segment: newest.replace(/\.seg$/, ''),
      bytes: 5000,
    });
    expect(statSync(join(payloads, newest)).size).toBe(committedSize);
    expect(sum(await listIssues(restarted, p))).toBe(300);
    expect(await restarted.stop()).toBe(0);
  });

  it('answers a request still arriving when SIGTERM comes, within the shutdown timeout', async () => {
    const dataDir = await initializedDataDir();
    dirs.push(dataDir);
    const server = await startServer({ dataDir });
    const p = await provision(server, 'Slow sender');
    const eventId = randomUUID().replace(/-/g, '');
    const body = Buffer.from(eventEnvelope({ event_id: eventId, message: 'Sent slowly' }));
    const pieces = 8;
    const answered = new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`,
        { method: 'POST', headers: { 'content-length': body.length } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      // Eight pieces a second apart: past the 5 s after which a stopping server cut requests off.
      let sent = 0;
      const next = () => {
        const end = Math.ceil(((sent + 1) * body.length) / pieces);
        req.write(body.subarray(Math.ceil((sent * body.length) / pieces), end));
        if (++sent === pieces) req.end();
        else setTimeout(next, 1000);
      };
      next();
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stopped = server.stop();
    expect(await answered).toBe(200);
    expect(await stopped).toBe(0);
    const stored = await storedEventIds(dataDir);
    expect(stored.events).toContain(eventId);
  });

  it('starts after a first start was killed while it created the database', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    // The server and the child creating its database, killed together as Ctrl-C or a
    // container's end kills them: a database half made must not be taken for one made.
    const first = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'errata.js'), 'start'], {
      env: { ...process.env, ERRATA_DATA_DIR: dataDir, ERRATA_PORT: String(await freePort()), ERRATA_LOG_LEVEL: 'warn' },
      detached: true,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => first.once('exit', resolve));
    const begun = () => ['db', 'db.creating'].some((dir) => existsSync(join(dataDir, dir, 'PG_VERSION')));
    while (!begun()) await new Promise((resolve) => setTimeout(resolve, 2));
    process.kill(-first.pid!, 'SIGKILL');
    await exited;

    const server = await startServer({ dataDir });
    const p = await provision(server, 'After a killed first start');
    expect(await burst(server, p, 5)).toHaveLength(5);
    await eventually(async () => (sum(await listIssues(server, p)) === 5 ? true : undefined), 'the five events to be counted');
    expect(await server.stop()).toBe(0);
  });
});
