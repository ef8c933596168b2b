import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { nodeOptionsEnv, quantityBytes } from './node-options.ts';

describe("a role's NODE_OPTIONS from its memory limit", () => {
  it('reads every quantity form the schema accepts', () => {
    expect(quantityBytes('1Gi')).toBe(2 ** 30);
    expect(quantityBytes('1.5Gi')).toBe(1.5 * 2 ** 30);
    expect(quantityBytes('512Mi')).toBe(512 * 2 ** 20);
    expect(quantityBytes('1G')).toBe(1e9);
    expect(quantityBytes('1073741824')).toBe(2 ** 30);
    expect(quantityBytes('2Ti')).toBe(2 * 2 ** 40);
    expect(quantityBytes('100k')).toBe(1e5);
    expect(() => quantityBytes('1GB')).toThrow(/not a Kubernetes quantity/);
  });

  it('gives 16 MiB semi-spaces from a 1 GiB limit to under 4 GiB, and nothing otherwise or when env sets NODE_OPTIONS', () => {
    const semi = [{ name: 'NODE_OPTIONS', value: '--max-semi-space-size=16' }];
    expect(nodeOptionsEnv({ resources: { limits: { memory: '1Gi' } } })).toEqual(semi);
    expect(nodeOptionsEnv({ resources: { limits: { memory: '3.5Gi' } } })).toEqual(semi);
    // From 4 GiB up Node gives 16 MiB semi-spaces itself.
    expect(nodeOptionsEnv({ resources: { limits: { memory: '4Gi' } } })).toEqual([]);
    expect(nodeOptionsEnv({ resources: { limits: { memory: '1G' } } })).toEqual([]);
    expect(nodeOptionsEnv({ resources: { limits: { memory: '512Mi' } } })).toEqual([]);
    expect(nodeOptionsEnv({ resources: { requests: { memory: '2Gi' } } })).toEqual([]);
    expect(nodeOptionsEnv({})).toEqual([]);
    const own = [{ name: 'NODE_OPTIONS', value: '--enable-source-maps' }];
    expect(nodeOptionsEnv({ resources: { limits: { memory: '2Gi' } }, env: own })).toEqual([]);
  });

  it('is a value Node starts with and honours', () => {
    const [entry] = nodeOptionsEnv({ resources: { limits: { memory: '1Gi' } } });
    // The heap Node gives a 1 GiB pod (old generation 512 MiB), with and without the option.
    const heapLimitMib = (nodeOptions: string) => {
      const run = spawnSync(process.execPath, ['-e', 'console.log(require("v8").getHeapStatistics().heap_size_limit)'], {
        env: { PATH: process.env.PATH, NODE_OPTIONS: nodeOptions },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      return Number(run.stdout) / 2 ** 20;
    };
    const pod = '--max-old-space-size=512 --max-semi-space-size=4';
    // Three semi-spaces' worth: two of the young generation and its large-object space.
    expect(heapLimitMib(`${pod} ${entry!.value}`) - heapLimitMib(pod)).toBe(36);
  });
});
