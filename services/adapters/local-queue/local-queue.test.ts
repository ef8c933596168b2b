import { appendFile, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.ts';
import { describeQueueContract } from '../contracts/queue.contract.ts';
import { LocalQueue } from './local-queue.ts';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'errata-queue-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const shared = tempDir();
describeQueueContract('local write-ahead log', async () => new LocalQueue(await shared));

describe('LocalQueue on disk', () => {
  it('drops a torn record at the end of the log and keeps every whole one', async () => {
    const dir = await tempDir();
    const first = new LocalQueue(dir);
    await first.publish('t', [{ key: 'a', value: Buffer.from('one') }, { key: 'a', value: Buffer.from('two') }]);
    await first.close();
    const [segment] = await readdir(join(dir, 't'));
    // A crash in the middle of a write leaves a partial frame behind.
    await appendFile(join(dir, 't', segment!), Buffer.from([40, 0, 0, 0, 1, 2, 3]));
    const second = new LocalQueue(dir);
    await second.publish('t', [{ key: 'a', value: Buffer.from('three') }]);
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      second.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
        seen.push(...batch.map((r) => r.value.toString()));
        if (seen.length === 3) resolve();
      });
    });
    await second.close();
    expect(seen).toEqual(['one', 'two', 'three']);
  });

  it('rolls segments and deletes the ones every consumer is done with', async () => {
    const dir = await tempDir();
    const queue = new LocalQueue(dir, { segmentBytes: 1024 });
    for (let i = 0; i < 10; i++) await queue.publish('t', [{ key: 'k', value: Buffer.alloc(300, i) }]);
    expect((await readdir(join(dir, 't'))).filter((f) => f.endsWith('.log')).length).toBeGreaterThan(2);
    let count = 0;
    await new Promise<void>((resolve) => {
      queue.subscribe('t', { group: 'g', maxBatchSize: 3 }, async (batch) => {
        count += batch.length;
        if (count === 10) resolve();
      });
    });
    await queue.close();
    const left = (await readdir(join(dir, 't'))).filter((f) => f.endsWith('.log'));
    expect(left).toHaveLength(1);
    expect((await stat(join(dir, 't', left[0]!))).size).toBeLessThanOrEqual(1024 + 400);
  });

  it('refuses to publish with 503 semantics once the backlog limit is reached', async () => {
    const queue = new LocalQueue(await tempDir(), { maxBacklogBytes: 1000 });
    await queue.publish('t', [{ key: 'k', value: Buffer.alloc(1200) }]);
    await expect(queue.publish('t', [{ key: 'k', value: Buffer.alloc(10) }])).rejects.toBeInstanceOf(UnavailableError);
    await queue.close();
  });

  it('delivers a record larger than the read chunk', async () => {
    const queue = new LocalQueue(await tempDir());
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    await queue.publish('t', [{ key: 'k', value: Buffer.from('small') }, { key: 'k', value: big }]);
    const seen: Buffer[] = [];
    await new Promise<void>((resolve) => {
      queue.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
        seen.push(...batch.map((r) => r.value));
        if (seen.length === 2) resolve();
      });
    });
    await queue.close();
    expect(seen[1]!.equals(big)).toBe(true);
  });
});
