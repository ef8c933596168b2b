import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { heapMibForLimit, nodeHeapEnv, quantityBytes } from './node-heap.ts';

describe("a role's Node heap from its memory limit", () => {
  it('reads every quantity form the schema accepts', () => {
    expect(quantityBytes('1Gi')).toBe(2 ** 30);
    expect(quantityBytes('1.5Gi')).toBe(1.5 * 2 ** 30);
    expect(quantityBytes('512Mi')).toBe(512 * 2 ** 20);
    expect(quantityBytes('1G')).toBe(1e9);
    expect(quantityBytes('700M')).toBe(7e8);
    expect(quantityBytes('1073741824')).toBe(2 ** 30);
    expect(quantityBytes('2Ti')).toBe(2 * 2 ** 40);
    expect(quantityBytes('100k')).toBe(1e5);
    expect(() => quantityBytes('1GB')).toThrow(/not a Kubernetes quantity/);
  });

  it('takes half the limit in MiB, at most 4,096', () => {
    expect(heapMibForLimit(2 ** 30)).toBe(512);
    expect(heapMibForLimit(1e9)).toBe(476);
    expect(heapMibForLimit(384 * 2 ** 20)).toBe(192);
    expect(heapMibForLimit(8 * 2 ** 30)).toBe(4096);
    expect(heapMibForLimit(64 * 2 ** 30)).toBe(4096);
    expect(heapMibForLimit(1e6)).toBeUndefined();
  });

  it('gives a value Node starts with and honours', () => {
    const [entry] = nodeHeapEnv({ resources: { limits: { memory: '1Gi' } } });
    expect(entry).toEqual({ name: 'NODE_OPTIONS', value: '--max-old-space-size=512' });
    const heapLimit = (env: NodeJS.ProcessEnv) => {
      const run = spawnSync(process.execPath, ['-e', 'console.log(require("v8").getHeapStatistics().heap_size_limit)'], {
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      return Number(run.stdout) / 2 ** 20;
    };
    // The old generation is what the flag sets; the young generation comes on top of it.
    const sized = heapLimit({ [entry!.name]: entry!.value });
    expect(sized).toBeGreaterThanOrEqual(512);
    expect(sized).toBeLessThan(600);
    expect(heapLimit({ NODE_OPTIONS: '--max-old-space-size=256' })).toBeLessThan(sized - 200);
  });
});
