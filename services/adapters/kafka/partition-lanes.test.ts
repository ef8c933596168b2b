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
  const committed: Item[][] = [];
  const lanes = new PartitionLanes<Item>({
    maxBatchSize,
    handle: async (batch) => {
      handled.push(batch);
      return answer(batch);
    },
    commit: async (lasts) => void committed.push(lasts),
  });
  const add = (partition: number, ...offsets: number[]) => {
    for (const offset of offsets) lanes.add(partition, BigInt(offset), { partition, offset });
  };
  return { lanes, add, handled, committed };
}

const offsets = (batches: Item[][]) => batches.map((b) => b.map((i) => `${i.partition}:${i.offset}`));

/** A handler's answer that waits until released. */
function gated() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { answer: () => gate.then(() => true), release };
}

describe('PartitionLanes', () => {
  it('hands each partition its records in order, in calls of at most maxBatchSize across partitions, committing after each', async () => {
    const { lanes, add, handled, committed } = lanesUnderTest(2);
    add(0, 0, 1, 2);
    add(1, 7);
    await sleep(0);
    await lanes.close();
    expect(offsets(handled)).toEqual([
      ['0:0', '0:1'],
      ['1:7', '0:2'],
    ]);
    // The last record of each partition a call took.
    expect(offsets(committed)).toEqual([['0:1'], ['1:7', '0:2']]);
  });

  it('starts a second call only for a full one, and never over a partition already in a call', async () => {
    const { answer, release } = gated();
    const { lanes, add, handled } = lanesUnderTest(2, answer);
    add(0, 0);
    await sleep(0);
    expect(offsets(handled)).toEqual([['0:0']]);
    add(0, 1, 2); // its partition is in the call in hand: waits, though a full call's worth
    add(1, 0); // less than a call's worth of the others: waits for the call in hand
    await sleep(0);
    expect(offsets(handled)).toEqual([['0:0']]);
    add(1, 1); // now a full call's worth waits
    await sleep(0);
    expect(offsets(handled)).toEqual([['0:0'], ['1:0', '1:1']]);
    release();
    await sleep(0);
    await lanes.close();
    expect(offsets(handled)).toEqual([['0:0'], ['1:0', '1:1'], ['0:1', '0:2']]);
  });

  it('starts each call at the next partition, so one partition’s backlog does not hold the others back', async () => {
    const { lanes, add, handled } = lanesUnderTest(2);
    add(0, 0, 1, 2, 3, 4, 5);
    add(1, 0);
    await sleep(0);
    await lanes.close();
    expect(offsets(handled)).toEqual([['0:0', '0:1'], ['1:0', '0:2'], ['0:3', '0:4'], ['0:5']]);
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

  it('commits nothing after a call left unhandled, and takes no later record of its partitions', async () => {
    const { lanes, add, handled, committed } = lanesUnderTest(1, (batch) => batch[0]!.offset !== 1);
    add(0, 0, 1, 2);
    add(1, 0);
    await sleep(0);
    add(0, 3);
    await lanes.close();
    expect(offsets(handled)).toEqual([['0:0'], ['1:0'], ['0:1']]);
    expect(offsets(committed)).toEqual([['0:0'], ['1:0']]);
  });

  it('stops every partition of a call left unhandled, or whose handler threw, committing none of them', async () => {
    for (const answer of [() => false, () => Promise.reject(new Error('handler failed'))]) {
      const { lanes, add, handled, committed } = lanesUnderTest(4, answer);
      add(0, 0);
      add(1, 0);
      await sleep(0);
      add(0, 1);
      add(1, 1);
      add(2, 0);
      await sleep(0);
      await lanes.close();
      expect(offsets(handled)).toEqual([['0:0', '1:0'], ['2:0']]);
      expect(committed).toEqual([]);
    }
  });

  it('on close, drops what waits, tells a retrying handler to give up, and waits for it; nothing of it is committed', async () => {
    let finished = false;
    const handled: Item[][] = [];
    const committed: Item[][] = [];
    const retrying = new PartitionLanes<Item>({
      maxBatchSize: 1,
      handle: async (batch, closing) => {
        handled.push(batch);
        await new Promise((resolve) => closing.addEventListener('abort', resolve));
        await sleep(20);
        finished = true;
        return false;
      },
      commit: async (lasts) => void committed.push(lasts),
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
    const { answer, release } = gated();
    const { lanes, add } = lanesUnderTest(2, answer);
    const pressure: boolean[] = [];
    lanes.onPressure = (full) => void pressure.push(full);
    add(0, 0, 1, 2, 3, 4, 5);
    add(1, 0);
    expect(pressure).toEqual([]);
    add(1, 1);
    expect(pressure).toEqual([true]);
    await sleep(0); // a call of each partition is in hand: four wait
    expect(pressure).toEqual([true, false]);
    release();
    await lanes.close();
  });
});
