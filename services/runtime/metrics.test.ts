import perfHooks from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { createMetrics, EVENT_LOOP_SAMPLE_MS } from './metrics.ts';
import { VERSION } from './version.ts';

describe('metrics registry', () => {
  it('labels errata_build_info with the version and role, once per process (not per worker thread)', async () => {
    const text = await createMetrics({ role: 'dispatcher' }).registry.metrics();
    expect(text).toContain(`errata_build_info{version="${VERSION}",role="dispatcher"} 1`);
    expect(await createMetrics({ processMetrics: false }).registry.metrics()).not.toContain('errata_build_info');
  });

  it('samples the event loop every EVENT_LOOP_SAMPLE_MS, not every 10 ms, each figure the time between two samples', async () => {
    // prom-client's default resolution (10 ms) woke an idle process 100 times a second.
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const { registry } = createMetrics({ role: 'mcp' });
      expect(monitor.mock.calls.map(([options]) => options?.resolution)).toEqual([EVENT_LOOP_SAMPLE_MS]);
      expect(EVENT_LOOP_SAMPLE_MS).toBeGreaterThanOrEqual(100);
      // As the comment on EVENT_LOOP_SAMPLE_MS says: the sampling interval is each figure's floor.
      await new Promise((resolve) => setTimeout(resolve, 3.5 * EVENT_LOOP_SAMPLE_MS));
      const p99 = /^errata_nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(await registry.metrics())?.[1];
      expect(Number(p99)).toBeGreaterThanOrEqual((0.9 * EVENT_LOOP_SAMPLE_MS) / 1000);
    } finally {
      monitor.mockRestore();
    }
  });
});
