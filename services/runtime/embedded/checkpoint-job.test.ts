// The checkpointer's duty in the embedded database: a checkpoint once enough WAL was written,
// none while nothing was, and the WAL before it recycled.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../../adapters/pglite/pglite-client.ts';
import { checkpointIfDue } from './checkpoint-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'errata-checkpoint-'));
let client: PGliteClient;

beforeAll(async () => {
  client = await PGliteClient.open(dir);
  await client.query('CREATE TABLE filler (v text)');
});

afterAll(async () => {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
});

async function lastCheckpoint(): Promise<string> {
  return (await client.query<{ redo: string }>('SELECT redo_lsn::text AS redo FROM pg_control_checkpoint()')).rows[0]!.redo;
}

/** Writes about `megabytes` MB of WAL: rows of incompressible text. */
async function writeWal(megabytes: number): Promise<void> {
  for (let i = 0; i < megabytes * 4; i++) {
    await client.query(
      `INSERT INTO filler SELECT md5(random()::text) || repeat(md5(random()::text), 7) FROM generate_series(1, 1000)`,
    );
  }
}

const walSegments = () => readdirSync(join(dir, 'pg_wal')).filter((name) => /^[0-9A-F]{24}$/.test(name));

describe('checkpointIfDue', () => {
  it('checkpoints once the WAL since the last checkpoint passes the limit, and not again until more is written', async () => {
    const policy = { maxWalBytes: 8 * 1024 * 1024, timeoutMs: 3_600_000 };
    await client.query('CHECKPOINT');
    const before = await lastCheckpoint();
    await writeWal(2);
    expect(await checkpointIfDue(client, policy)).toBeUndefined();
    expect(await lastCheckpoint()).toBe(before);
    await writeWal(8);
    expect(await checkpointIfDue(client, policy)).toBeGreaterThan(0);
    expect(await lastCheckpoint()).not.toBe(before);
    expect(await checkpointIfDue(client, policy)).toBeUndefined();
  });

  it('checkpoints after the timeout only when something was written since the last one', async () => {
    const policy = { maxWalBytes: 1024 * 1024 * 1024, timeoutMs: 0 };
    await client.query('CHECKPOINT');
    expect(await checkpointIfDue(client, policy)).toBeUndefined();
    await writeWal(2);
    expect(await checkpointIfDue(client, policy)).toBeGreaterThan(0);
  });

  it('keeps the WAL from growing for as long as writes go on', async () => {
    const policy = { maxWalBytes: 16 * 1024 * 1024, timeoutMs: 3_600_000 };
    await client.query('CHECKPOINT');
    const segmentsAtStart = walSegments().length;
    for (let round = 0; round < 8; round++) {
      await writeWal(16);
      await checkpointIfDue(client, policy);
    }
    // 128 MB were written: eight 16 MB segments' worth, all recycled and reused as it went.
    expect(walSegments().length).toBeLessThanOrEqual(segmentsAtStart + 3);
  });
});
