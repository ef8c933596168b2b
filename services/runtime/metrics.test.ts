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

  it('samples the event loop every EVENT_LOOP_SAMPLE_MS, not every 10 ms, and still reports its delay', async () => {
    // prom-client's default resolution (10 ms) woke an idle process 100 times a second.
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const text = await createMetrics({ role: 'mcp' }).registry.metrics();
      expect(monitor.mock.calls.map(([options]) => options?.resolution)).toEqual([EVENT_LOOP_SAMPLE_MS]);
      expect(EVENT_LOOP_SAMPLE_MS).toBeGreaterThanOrEqual(100);
      expect(text).toMatch(/^errata_nodejs_eventloop_lag_p99_seconds \d/m);
    } finally {
      monitor.mockRestore();
    }
  });
});
