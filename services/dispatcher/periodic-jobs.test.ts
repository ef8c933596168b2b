// The dispatcher's periodic jobs end before their owner closes the stores they use: a pass
// still under way would otherwise run on against a closed database. The purge of deleted
// projects is among them.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openEmbeddedStores } from '../../test/support/embedded-stores.ts';
import { createLogger } from '../runtime/logger.ts';
import { createMetrics } from '../runtime/metrics.ts';
import { startPeriodicJobs } from './periodic-jobs.ts';

describe('startPeriodicJobs', () => {
  it('stop() resolves once the passes under way have ended, so the stores may close', async () => {
    const stores = await openEmbeddedStores();
    const logged: string[] = [];
    const lines = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    // Every job runs a first pass at once: stopped straight away, their passes are under way.
    const periodic = startPeriodicJobs({
      ...stores,
      baseUrl: 'http://127.0.0.1',
      logger: createLogger('warn', lines),
      metrics: createMetrics({ processMetrics: false }),
      retentionDays: 90,
    });
    await periodic.stop();
    await stores.close();
    await new Promise((resolve) => setTimeout(resolve, 500)); // time for a pass left running to fail
    expect(logged).toEqual([]);
  });

  it('purges, at its first pass, a project deleted more than ten minutes before', async () => {
    const stores = await openEmbeddedStores();
    try {
      const org = await stores.metadata.ensureOrganization('default', 'Default');
      const { project } = await stores.metadata.createProject(
        { organizationId: org.id, slug: 'gone', name: 'Gone' },
        { publicKey: 'g'.repeat(32), label: 'Default' },
      );
      await stores.metadata.deleteProject(project.id, new Date(Date.now() - 11 * 60_000));
      const periodic = startPeriodicJobs({
        ...stores,
        baseUrl: 'http://127.0.0.1',
        logger: createLogger('silent'),
        metrics: createMetrics({ processMetrics: false }),
        retentionDays: 90,
      });
      try {
        for (let tries = 0; (await stores.metadata.listDeletedProjects(new Date(), 10)).length > 0; tries++) {
          expect(tries).toBeLessThan(100);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await periodic.stop();
      }
    } finally {
      await stores.close();
    }
  });
});
