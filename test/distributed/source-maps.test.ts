// Source maps in the distributed mode: uploaded with the real sentry-cli through the ingest
// processes into S3 (MinIO), indexed in Postgres; the dispatchers load them from S3 and
// symbolicate the event a @sentry/node run of the bundle sends; the mcp role shows the result.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFullCluster, type Cluster } from '../support/distributed-cluster.ts';
import { infraEnv } from '../support/infra-env.ts';
import type { RoleProcess } from '../support/role-process.ts';
import { buildSourceMapApp, CART_LINE_2, sentryCli, throwFromBundle, type SourceMapApp } from '../support/source-map-app.ts';
import { api, eventually, runCliJson, type Provisioned } from '../support/standalone-server.ts';

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
});
