// Source maps in the distributed mode: uploaded with the real sentry-cli through the ingest
// processes into S3 (MinIO), indexed in Postgres; the dispatchers load them from S3 and
// symbolicate the event a @sentry/node run of the bundle sends; the mcp role shows the result.
// Then the project is deleted through the mcp role: ingest refuses its DSN, and the purge empties
// S3 and ClickHouse of it.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFullCluster, type Cluster } from '../support/distributed-cluster.ts';
import { infraEnv } from '../support/infra-env.ts';
import type { RoleProcess } from '../support/role-process.ts';
import { buildSourceMapApp, CART_LINE_2, sentryCli, throwFromBundle, type SourceMapApp } from '../support/source-map-app.ts';
import { api, apiRequest, eventually, runCliJson, type Provisioned } from '../support/standalone-server.ts';
import { dsnStatus } from '../support/dsn-status.ts';
import { purgeDeletedProjects } from '../../services/dispatcher/project-purge.ts';
import { LATE_EVENTS_MS } from '../../services/dispatcher/retention.ts';
import { composeMcp } from '../../services/runtime/compose.ts';
import { loadConfig } from '../../services/runtime/config.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { createMetrics } from '../../services/runtime/metrics.ts';

let cluster: Cluster;
let mcp: RoleProcess;
let p: Provisioned;
let app: SourceMapApp;

beforeAll(async () => {
  ({ cluster, mcp, p } = await startFullCluster(infraEnv(), 'Maps App'));
  app = await buildSourceMapApp();
}, 180_000);
afterAll(async () => {
  const { exitCodes } = await cluster.destroy();
  await rm(app.dir, { recursive: true, force: true });
  expect(exitCodes).toEqual(exitCodes.map(() => 0));
});

describe('source maps, distributed', () => {
  it('upload to S3 through ingest, symbolication by the dispatchers, original frames through mcp', async () => {
    const token = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', p.projectSlug], cluster.env))
      .plaintext;
    const uploaded = await sentryCli(['sourcemaps', 'upload', '--wait', app.dist], {
      SENTRY_URL: cluster.ingest.url,
      SENTRY_AUTH_TOKEN: token,
      SENTRY_PROJECT: p.projectSlug,
    });
    expect(uploaded.code, uploaded.stderr).toBe(0);
    const stored = await runCliJson<{ artifacts: Array<{ debugId: string }> }>(
      ['listsourcemaps', '--project', p.projectSlug],
      cluster.env,
    );
    expect(stored.artifacts.map((a) => a.debugId)).toEqual([app.debugId, app.debugId]);

    await throwFromBundle(app, p.dsn);
    const issue = await eventually(
      async () => {
        const list = await api<{ issues: Array<{ shortId: string; title: string }> }>(
          mcp,
          `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/issues?status=all`,
          p.token,
        );
        return list.body.issues.find((i) => i.title.includes('reduce'));
      },
      'the issue of the thrown error',
      60_000,
    );
    // The issue (Postgres) is written before its event (ClickHouse): wait for the event too.
    const latestEvent = await eventually(async () => {
      const detail = await api<{ latestEvent: { payload: any } | null }>(
        mcp,
        `/api/v1/organizations/${p.organization}/issues/${issue.shortId}`,
        p.token,
      );
      return detail.body.latestEvent ?? undefined;
    }, 'the stored event');
    const frames = latestEvent.payload.exception.values[0].stacktrace.frames as Array<Record<string, any>>;
    expect(frames.at(-1)).toMatchObject({ lineno: 2, function: 'totalOf', context_line: CART_LINE_2 });
    expect(frames.at(-1)!.filename).toMatch(/src\/cart\.js$/);
  });

  it('deleting the project: ingest refuses its DSN within its key cache, and the purge empties S3 and ClickHouse of it', async () => {
    const path = `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}`;
    expect((await apiRequest(mcp, 'DELETE', `${path}?confirm=${p.projectSlug}`, p.token)).status).toBe(200);
    await eventually(
      async () => (await dsnStatus(cluster.ingest.url, p.dsn)) === 403 || undefined,
      'ingest refusing the deleted DSN',
      45_000,
    );

    // The stores as the dispatcher opens them; its own purge waits ten minutes after the delete.
    const ports = await composeMcp(loadConfig(cluster.env), createLogger('silent'), createMetrics({ processMetrics: false }));
    try {
      const files = async () => (await ports.blobs.list(`projects/${p.projectId}/`)).items;
      const events = () => ports.events.countEventsByIssue([p.projectId], 0, Date.now() / 1000 + 60);
      expect(await files()).not.toEqual([]);
      expect((await events()).size).toBeGreaterThan(0);
      const purged = await purgeDeletedProjects({
        ...ports,
        logger: createLogger('silent'),
        now: () => Date.now() + LATE_EVENTS_MS + 60_000,
      });
      expect(purged.map((project) => project.projectId)).toContain(p.projectId);
      expect(await files()).toEqual([]);
      expect(await events()).toEqual(new Map());
    } finally {
      await ports.close();
    }
  });
});
