// The data directory holds every organization's events, DSN keys and the secrets key: only the
// user running Errata may enter it, whoever else is on the machine (issue 14). `errata start`
// and the CLI without a server both create it 0700, make an existing one 0700 again (saying so
// in a warning), and create nothing inside that group or others can read.
import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import {
  eventually,
  freePort,
  provision,
  removeDir,
  runCli,
  startServer,
  stopAndRemove,
  tempDataDir,
} from '../support/standalone-server.ts';
import { metricTotal } from '../support/metrics.ts';
import { logLines } from '../support/log-lines.ts';

const WARNING = 'the data directory was open to other users; made it private (mode 700)';

const dirs: string[] = [];
async function parentDir(): Promise<string> {
  const dir = await tempDataDir();
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** Every file and folder under `dir` that group or others may read, write or enter, with its mode. */
async function openToOthers(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    const path = join(dir, entry);
    const info = await lstat(path).catch(() => undefined); // removed meanwhile (a temp file)
    if (info && !info.isSymbolicLink() && (info.mode & 0o077) !== 0) {
      found.push(`${relative(dir, path)} ${(info.mode & 0o777).toString(8)}`);
    }
  }
  return found;
}

describe('errata start', () => {
  it("creates the data directory 0700, and the database, queue and secrets key inside are the owner's alone", async () => {
    const dataDir = join(await parentDir(), 'data');
    const server = await startServer({ dataDir });
    try {
      const project = await provision(server);
      const processed = await metricTotal(server, 'errata_pipeline_processed_total', { category: 'error' });
      const url = `${server.url}/api/${project.projectId}/envelope/?sentry_key=${project.publicKey}`;
      const sent = await rawRequest(url, { body: eventEnvelope({ event_id: 'c'.repeat(32), message: 'private' }) });
      expect(sent.status).toBe(200);
      await eventually(
        async () =>
          (await metricTotal(server, 'errata_pipeline_processed_total', { category: 'error' })) > processed || undefined,
        'the event processed',
      );
      expect(await modeOf(dataDir)).toBe(0o700);
      const entries = await readdir(dataDir, { recursive: true });
      for (const expected of [/^secrets\.key$/, /^queue\/.+/, /^db\/pg_wal\/.+/, /^db\/global\/pg_control$/]) {
        expect(
          entries.some((entry) => expected.test(entry)),
          String(expected),
        ).toBe(true);
      }
      expect(await openToOthers(dataDir)).toEqual([]);
      expect(logLines(server.output(), WARNING)).toEqual([]);
    } finally {
      await stopAndRemove(server);
    }
  });

  it('makes an existing data directory open to others private again, with a warning', async () => {
    const dataDir = await parentDir();
    await chmod(dataDir, 0o755);
    const server = await startServer({ dataDir });
    try {
      expect(await modeOf(dataDir)).toBe(0o700);
      const [warning] = logLines(server.output(), WARNING);
      expect(warning).toMatchObject({ level: 'warn', dataDir, mode: '755' });
      expect(await openToOthers(dataDir)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe('the CLI without a running server', () => {
  it('creates the data directory 0700, or makes an existing one private with a warning, and keeps what it writes private', async () => {
    const port = await freePort();
    const env = { ...process.env, ERRATA_PORT: String(port), ERRATA_BASE_URL: `http://127.0.0.1:${port}` };
    const fresh = join(await parentDir(), 'nested', 'data');
    const created = await runCli(['createproject', '--name', 'web'], { ...env, ERRATA_DATA_DIR: fresh });
    expect(created.code, created.stderr).toBe(0);
    expect(await modeOf(fresh)).toBe(0o700);
    expect(await openToOthers(fresh)).toEqual([]);
    expect(logLines(created.stderr, WARNING)).toEqual([]);

    const existing = await parentDir();
    await mkdir(existing, { recursive: true });
    await chmod(existing, 0o775);
    const fixed = await runCli(['createproject', '--name', 'web'], { ...env, ERRATA_DATA_DIR: existing });
    expect(fixed.code, fixed.stderr).toBe(0);
    // stdout stays the command's output; the warning is a JSON log line on stderr.
    expect(fixed.stdout).toMatch(/^Created project "web"/);
    expect(logLines(fixed.stderr, WARNING)).toEqual([expect.objectContaining({ level: 'warn', dataDir: existing, mode: '775' })]);
    expect(await modeOf(existing)).toBe(0o700);
    expect(await openToOthers(existing)).toEqual([]);
  });
});
