import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PartitionLanes } from './partition-lanes.ts';

interface Item {
  partition: number;
  offset: number;
}

/** Lanes whose handler records every call and answers as told; commits are recorded too. */
function lanesUnderTest(maxBatchSize: number, answer: (batch: Item[]) => boolean | Promise<boolean> = () => true) {
  const handled: Item[][] = [];
  const committed: Item[] = [];
  const lanes = new PartitionLanes<Item>({
    maxBatchSize,
    handle: async (_partition, batch) => {
      handled.push(batch);
      return answer(batch);
    },
    commit: async (last) => void committed.push(last),
  });
  const add = (partition: number, ...offsets: number[]) => {
    for (const offset of offsets) lanes.add(partition, BigInt(offset), { partition, offset });
  };
  return { lanes, add, handled, committed };
}

const offsets = (batches: Item[][]) => batches.map((b) => b.map((i) => `${i.partition}:${i.offset}`));

describe('PartitionLanes', () => {
  it('hands each partition its records in order, in batches of at most maxBatchSize, committing after each', async () => {
    const { lanes, add, handled, committed } = lanesUnderTest(2);
    add(0, 0, 1, 2);
    add(1, 7);
    await sleep(0);
    await lanes.close();
    expect(offsets(handled)).toEqual([['0:0', '0:1'], ['1:7'], ['0:2']]);
    expect(committed.map((i) => `${i.partition}:${i.offset}`)).toEqual(['0:1', '1:7', '0:2']);
  });

  it('drops a record below the lane position (delivered again)', async () => {
    const { lanes, add, handled } = lanesUnderTest(10);
    add(0, 5, 6);
    await sleep(0);
    add(0, 5, 6, 7);
    await sleep(0);
    await lanes.close();
    expect(offsets(handled).flat()).toEqual(['0:5', '0:6', '0:7']);
  });

  it('commits nothing after a batch left unhandled, and takes no later record of that partition', async () => {
    const { lanes, add, handled, committed } = lanesUnderTest(1, (batch) => batch[0]!.offset !== 1);
    add(0, 0, 1, 2);
    add(1, 0);
    await sleep(0);
    add(0, 3);
    await lanes.close();
    expect(offsets(handled)).toEqual([['0:0'], ['1:0'], ['0:1']]);
    expect(committed.map((i) => `${i.partition}:${i.offset}`)).toEqual(['0:0', '1:0']);
  });

  it('on close, drops what waits, tells a retrying handler to give up, and waits for it; nothing of it is committed', async () => {
    let finished = false;
    const handled: Item[][] = [];
    const committed: Item[] = [];
    const retrying = new PartitionLanes<Item>({
      maxBatchSize: 1,
      handle: async (_partition, batch, closing) => {
        handled.push(batch);
        await new Promise((resolve) => closing.addEventListener('abort', resolve));
        await sleep(20);
        finished = true;
        return false;
      },
      commit: async (last) => void committed.push(last),
    });
    for (const offset of [0, 1, 2]) retrying.add(0, BigInt(offset), { partition: 0, offset });
    await sleep(0);
    await retrying.close();
    expect(finished).toBe(true);
    expect(offsets(handled)).toEqual([['0:0']]);
    expect(committed).toEqual([]);
    retrying.add(0, 3n, { partition: 0, offset: 3 });
    await sleep(0);
    expect(handled).toHaveLength(1);
  });

  it('pauses at four times maxBatchSize waiting and resumes at half of that', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { lanes, add } = lanesUnderTest(2, async () => {
      await gate;
      return true;
    });
    const pressure: boolean[] = [];
    lanes.onPressure = (full) => void pressure.push(full);
    add(0, 0, 1, 2, 3, 4, 5);
    add(1, 0);
    expect(pressure).toEqual([]);
    add(1, 1);
    expect(pressure).toEqual([true]);
    await sleep(0); // a batch of each partition is in hand: four wait
    expect(pressure).toEqual([true, false]);
    release();
    await lanes.close();
  });
});
