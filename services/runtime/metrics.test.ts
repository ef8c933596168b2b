import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';
import { VERSION } from './version.ts';

describe('metrics registry', () => {
  it('labels errata_build_info with the version and role, once per process (not per worker thread)', async () => {
    const text = await createMetrics({ role: 'dispatcher' }).registry.metrics();
    expect(text).toContain(`errata_build_info{version="${VERSION}",role="dispatcher"} 1`);
    expect(await createMetrics({ processMetrics: false }).registry.metrics()).not.toContain('errata_build_info');
  });
});
