// The source map upload protocol with the real tools: a small multi-file app bundled and
// minified by esbuild, Debug IDs injected by the real `sentry-cli sourcemaps inject`, uploaded
// by the real `sentry-cli sourcemaps upload` to a running Errata with an upload token.
import { createHash, randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, runCliJson, startServer, stopAndRemove, type StandaloneServer } from '../support/standalone-server.ts';
import {
  buildSourceMapApp,
  buildWithEsbuildPlugin,
  CART_LINE_2,
  sentryCli as runSentryCli,
  throwFromBundle,
  type SourceMapApp,
} from '../support/source-map-app.ts';
import { buildLargeBundle, largeBundleEvent, uploadLargeBundle } from '../support/large-bundle.ts';
import { metricTotal } from '../support/metrics.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';

let server: StandaloneServer;
let work: string;
let app: SourceMapApp;
let token: string;
let debugId: string;

interface Artifact {
  debugId: string;
  type: string;
  url: string;
  sizeBytes: number;
  uploadedAt: string;
  lastUsedAt: string | null;
}

function sentryCli(args: string[], env: Record<string, string> = {}) {
  return runSentryCli(args, { SENTRY_URL: server.url, SENTRY_AUTH_TOKEN: token, SENTRY_PROJECT: 'web', ...env });
}

const artifacts = async (project = 'web') =>
  (await runCliJson<{ artifacts: Artifact[] }>(['listsourcemaps', '--project', project], server.env)).artifacts;

beforeAll(async () => {
  server = await startServer();
  for (const name of ['web', 'shop', 'store']) await runCliJson(['createproject', '--name', name], server.env);
  token = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', 'web'], server.env)).plaintext;
  app = await buildSourceMapApp();
  work = app.dir;
  debugId = app.debugId;
}, 120_000);

afterAll(async () => {
  await stopAndRemove(server);
  await rm(work, { recursive: true, force: true });
});

describe('sentry-cli sourcemaps upload', () => {
  it('uploads the minified file and its map, indexed by Debug ID', async () => {
    const uploaded = await sentryCli(['sourcemaps', 'upload', join(work, 'dist')]);
    expect(uploaded.code, `${uploaded.stdout}\n${uploaded.stderr}`).toBe(0);
    const stored = await eventually(async () => {
      const list = await artifacts();
      return list.length === 2 ? list : undefined;
    }, 'the assembled bundle');
    expect(stored.map((a) => [a.debugId, a.type]).sort()).toEqual([
      [debugId, 'minified_source'],
      [debugId, 'source_map'],
    ]);
    expect(stored.find((a) => a.type === 'source_map')!.url).toBe('~/app.js.map');
  });

  it('uploading the same bundle again changes nothing, and --wait sees it done', async () => {
    const before = await artifacts();
    const again = await sentryCli(['sourcemaps', 'upload', '--wait', join(work, 'dist')]);
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect(await artifacts()).toEqual(before);
  });

  it('refuses a token of another project, and an unknown token, saying what to do', async () => {
    const wrongProject = await sentryCli(['sourcemaps', 'upload', '--project', 'shop', join(work, 'dist')]);
    expect(wrongProject.code).not.toBe(0);
    expect(wrongProject.stderr).toContain('belongs to project "web"');
    const unknown = await sentryCli(['sourcemaps', 'upload', join(work, 'dist')], { SENTRY_AUTH_TOKEN: 'errata_not-a-token' });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('errata createuploadtoken');
    expect(await artifacts('shop')).toEqual([]);
  });
});

/** The bytes of the files under a directory (0 when it does not exist). */
async function bytesUnder(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  let total = 0;
  for (const entry of entries) {
    const info = await stat(join(dir, entry)).catch(() => undefined);
    if (info?.isFile()) total += info.size;
  }
  return total;
}

/** The DSN of a project, from `errata listprojects`. */
async function dsnOf(project: string): Promise<string> {
  const { projects } = await runCliJson<{ projects: Array<{ slug: string; dsns: Array<{ dsn: string }> }> }>(
    ['listprojects'],
    server.env,
  );
  return projects.find((p) => p.slug === project)!.dsns[0]!.dsn;
}

/** The issue of the error the bundle throws, and the exception of its latest event. */
async function thrownIssue(project: string, title = 'reduce') {
  const reader = (await runCliJson<{ plaintext: string }>(['createtoken', '--role', 'read', '--project', project], server.env))
    .plaintext;
  const headers = { authorization: `Bearer ${reader}` };
  const issue = await eventually(async () => {
    const response = await fetch(`${server.url}/api/v1/organizations/default/projects/${project}/issues?status=all`, {
      headers,
    });
    const body = (await response.json()) as { issues: Array<{ shortId: string; title: string; culprit: string }> };
    return body.issues.find((i) => i.title.includes(title));
  }, 'the issue of the thrown error');
  // The issue is recorded before its event is stored: wait for the event too.
  const latestEvent = await eventually(async () => {
    const detail = await fetch(`${server.url}/api/v1/organizations/default/issues/${issue.shortId}`, { headers });
    return ((await detail.json()) as { latestEvent: { payload: any } | null }).latestEvent ?? undefined;
  }, 'the stored event');
  const exception = latestEvent.payload.exception.values[0];
  return { issue, exception, frames: exception.stacktrace.frames as Array<Record<string, any>> };
}

describe('symbolication', () => {
  it('an error thrown by the minified bundle shows the original files, functions, lines and source', async () => {
    await throwFromBundle(app, await dsnOf('web'));
    const { issue, exception, frames } = await thrownIssue('web');
    const crash = frames[frames.length - 1]!;
    expect(crash).toMatchObject({
      lineno: 2,
      function: 'totalOf',
      context_line: CART_LINE_2,
    });
    expect(crash.filename).toMatch(/src\/cart\.js$/);
    // checkout is called from the (unmapped) runner, so nothing names it: its line maps all the same.
    expect(frames.some((f) => /src\/app\.js$/.test(f.filename) && f.lineno === 3)).toBe(true);
    // The frames as they arrived are kept.
    expect(exception.raw_stacktrace.frames.at(-1).filename).toMatch(/dist\/app\.js$/);
    // Title and culprit come from original code; the map's last use is recorded.
    expect(issue.culprit).toContain('cart');
    const used = await eventually(async () => {
      const list = await artifacts();
      return list.find((a) => a.type === 'source_map' && a.lastUsedAt) ?? undefined;
    }, 'the map marked as used');
    expect(used.debugId).toBe(debugId);
  });
});

describe('@sentry/esbuild-plugin (its own sentry-cli 2.x)', () => {
  it('injects and uploads during the build; errors of that build show original frames', async () => {
    const pluginToken = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', 'store'], server.env))
      .plaintext;
    const built = await buildWithEsbuildPlugin({ url: server.url, token: pluginToken, project: 'store' });
    try {
      expect(built.debugId).not.toBe(debugId);
      const stored = await artifacts('store');
      expect(stored.map((a) => [a.debugId, a.type]).sort()).toEqual([
        [built.debugId, 'minified_source'],
        [built.debugId, 'source_map'],
      ]);
      await throwFromBundle(built, await dsnOf('store'));
      const { frames, exception } = await thrownIssue('store');
      expect(frames.at(-1)).toMatchObject({ lineno: 2, function: 'totalOf', context_line: CART_LINE_2 });
      expect(frames.at(-1)!.filename).toMatch(/src\/cart\.js$/);
      expect(exception.raw_stacktrace.frames.at(-1).filename).toMatch(/dist\/app\.js$/);
    } finally {
      await rm(built.dir, { recursive: true, force: true });
    }
  });
});

describe('a large map (5 MB, as a big single-page app has)', () => {
  it('is parsed once and kept for the events after it, and symbolicates them', async () => {
    await runCliJson(['createproject', '--name', 'big'], server.env);
    const bundle = await buildLargeBundle(500, 5);
    expect(bundle.map.length).toBeGreaterThan(4.5 * 1024 * 1024);
    const { debugId: bigId, frames } = await uploadLargeBundle(server, 'big', join(work, 'big'), bundle);
    const { projects } = await runCliJson<{ projects: Array<{ slug: string; id: number; dsns: Array<{ dsn: string }> }> }>(
      ['listprojects'],
      server.env,
    );
    const big = projects.find((p) => p.slug === 'big')!;
    const url = `${server.url}/api/${big.id}/envelope/?sentry_key=${new URL(big.dsns[0]!.dsn).username}`;
    const loads = (result: string) => metricTotal(server, 'errata_sourcemap_loads_total', { result });
    const [keptBefore, tooLargeBefore] = [await loads('kept'), await loads('too_large')];
    // One event at a time, each in a batch of its own: a map the cache cannot hold is read again for each.
    for (let i = 0; i < 3; i++) {
      const processed = await metricTotal(server, 'errata_pipeline_processed_total', { category: 'error' });
      const sent = await rawRequest(url, { body: eventEnvelope(largeBundleEvent(frames, bigId)) });
      expect(sent.status).toBe(200);
      await eventually(
        async () =>
          (await metricTotal(server, 'errata_pipeline_processed_total', { category: 'error' })) > processed || undefined,
        'the event processed',
      );
    }
    expect(await loads('too_large')).toBe(tooLargeBefore);
    expect((await loads('kept')) - keptBefore).toBe(1);
    const { frames: stored } = await thrownIssue('big', 'x is undefined');
    expect(stored.at(-1)!.filename).toMatch(/src\/module\d+\.js$/);
    // Synthetic frames: no real caller names the function, so line and source are what to check.
    expect(stored.at(-1)).toMatchObject({
      lineno: bundle.origins.at(-1)!.line,
      context_line: expect.stringMatching(/^ *return value \* \d+/),
    });
  }, 120_000);
});

describe('an event that arrives before its map', () => {
  it('is grouped on minified frames and stays so; events after the upload get original frames and another issue', async () => {
    const dsn = await dsnOf('shop');
    const reader = (await runCliJson<{ plaintext: string }>(['createtoken', '--role', 'read', '--project', 'shop'], server.env))
      .plaintext;
    const issues = async () => {
      const response = await fetch(`${server.url}/api/v1/organizations/default/projects/shop/issues?status=all`, {
        headers: { authorization: `Bearer ${reader}` },
      });
      return ((await response.json()) as { issues: Array<{ shortId: string; count: number }> }).issues;
    };
    const framesOf = async (shortId: string) => {
      const response = await fetch(`${server.url}/api/v1/organizations/default/issues/${shortId}`, {
        headers: { authorization: `Bearer ${reader}` },
      });
      const body = (await response.json()) as { latestEvent: { payload: any } };
      return body.latestEvent.payload.exception.values[0].stacktrace.frames as Array<{ filename: string }>;
    };
    const run = async () => {
      await throwFromBundle(app, dsn);
    };

    await run();
    const [before] = await eventually(async () => ((await issues()).length === 1 ? issues() : undefined), 'the first issue');
    expect((await framesOf(before!.shortId)).at(-1)!.filename).toMatch(/dist\/app\.js$/);

    const shopToken = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', 'shop'], server.env)).plaintext;
    const uploaded = await sentryCli(['sourcemaps', 'upload', '--wait', '--project', 'shop', join(work, 'dist')], {
      SENTRY_AUTH_TOKEN: shopToken,
    });
    expect(uploaded.code, uploaded.stderr).toBe(0);
    // The dispatcher looks again for a map it missed within seconds; send until an event is symbolicated.
    const after = await eventually(
      async () => {
        await run();
        const symbolicated = (await issues()).find((i) => i.shortId !== before!.shortId);
        return symbolicated;
      },
      'an issue grouped on original frames',
      60_000,
    );
    expect((await framesOf(after.shortId)).at(-1)!.filename).toMatch(/src\/cart\.js$/);
    // The first issue is not regrouped: still minified, still its own issue.
    expect((await framesOf(before!.shortId)).at(-1)!.filename).toMatch(/dist\/app\.js$/);
  }, 120_000);
});

describe('the upload protocol, spoken by hand', () => {
  const org = '/api/0/organizations/any-org';
  const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');
  const auth = () => ({ authorization: `Bearer ${token}` });

  async function postChunks(parts: Array<{ field: string; name: string; body: Buffer }>) {
    const form = new FormData();
    for (const part of parts) form.append(part.field, new Blob([new Uint8Array(part.body)]), part.name);
    const response = await fetch(`${server.url}${org}/chunk-upload/`, { method: 'POST', headers: auth(), body: form });
    return { status: response.status, text: await response.text() };
  }

  async function assemble(body: unknown) {
    const response = await fetch(`${server.url}${org}/artifactbundle/assemble/`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  it('advertises its limits, and refuses requests without a valid upload token', async () => {
    const options = await fetch(`${server.url}${org}/chunk-upload/`, { headers: auth() });
    expect(await options.json()).toMatchObject({
      url: `${server.url}${org}/chunk-upload/`,
      chunkSize: 8 * 1024 * 1024,
      chunksPerRequest: 64,
      hashAlgorithm: 'sha1',
      compression: ['gzip'],
    });
    for (const authorization of [undefined, 'Bearer errata_agent_abc', `Bearer ${token}x`]) {
      const refused = await fetch(`${server.url}${org}/chunk-upload/`, { headers: authorization ? { authorization } : {} });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await refused.json()) as { detail: string }).detail).toContain('errata createuploadtoken');
    }
  });

  it('checks every chunk against its SHA-1, gzip or not', async () => {
    const chunk = Buffer.from('some bytes of a bundle');
    expect((await postChunks([{ field: 'file', name: sha1(chunk), body: chunk }])).status).toBe(200);
    expect((await postChunks([{ field: 'file_gzip', name: sha1(chunk), body: gzipSync(chunk) }])).status).toBe(200);
    const wrong = await postChunks([{ field: 'file', name: 'b'.repeat(40), body: chunk }]);
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.text).detail).toContain('does not match its SHA-1');
    const notGzip = await postChunks([{ field: 'file_gzip', name: sha1(chunk), body: chunk }]);
    expect(JSON.parse(notGzip.text).detail).toContain('not valid gzip');
    const badName = await postChunks([{ field: 'chunk', name: sha1(chunk), body: chunk }]);
    expect(JSON.parse(badName.text).detail).toContain('"file" or "file_gzip"');
  });

  it('reports the chunks it misses, and a bundle that is not one ends in state error with a detail', async () => {
    const bundle = Buffer.from('this is not a ZIP archive at all');
    const checksum = sha1(bundle);
    const missing = await assemble({ checksum, chunks: [checksum], projects: ['web'] });
    expect(missing.body).toEqual({ state: 'not_found', missingChunks: [checksum], detail: null });
    await postChunks([{ field: 'file', name: checksum, body: bundle }]);
    expect((await assemble({ checksum, chunks: [checksum], projects: ['web'] })).body.state).toMatch(/created|assembling|error/);
    const failed = await eventually(async () => {
      const polled = await assemble({ checksum, chunks: [checksum], projects: ['web'] });
      return polled.body.state === 'error' ? polled.body : undefined;
    }, 'the failed assembly');
    expect(failed.detail).toMatch(/not a readable ZIP|SYSB|ZIP/);
    expect(await artifacts()).toHaveLength(2);
  });

  it('stores gzip chunks as sent: 64 gzip bombs (~0.5 MB) take about that on disk, not the 512 MiB they inflate to', async () => {
    const parts: Array<{ field: string; name: string; body: Buffer }> = [];
    const whole = createHash('sha1');
    for (let i = 0; i < 64; i++) {
      const chunk = Buffer.alloc(8 * 1024 * 1024);
      chunk.writeUInt32BE(i + 1);
      whole.update(chunk);
      parts.push({ field: 'file_gzip', name: sha1(chunk), body: gzipSync(chunk) });
    }
    const sent = parts.reduce((sum, part) => sum + part.body.length, 0);
    expect(sent).toBeLessThan(1024 * 1024);
    const before = await bytesUnder(join(server.dataDir, 'blobs', 'chunks'));
    expect((await postChunks(parts)).status).toBe(200);
    expect((await bytesUnder(join(server.dataDir, 'blobs', 'chunks'))) - before).toBeLessThan(2 * sent);
    // They assemble like any chunks: read one at a time, never joined (these join into no ZIP).
    const request = { checksum: whole.digest('hex'), chunks: parts.map((part) => part.name), projects: ['web'] };
    expect((await assemble(request)).body).toMatchObject({ state: 'created', missingChunks: [] });
    const failed = await eventually(async () => {
      const polled = await assemble(request);
      return polled.body.state === 'error' ? polled.body : undefined;
    }, 'the assembly of the bombs');
    expect(failed.detail).toMatch(/not a readable ZIP/);
  });

  it('answers other upload kinds (debug files, ProGuard) with a clear "not supported"', async () => {
    const response = await fetch(`${server.url}/api/0/projects/any-org/web/files/difs/assemble/`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { detail: string }).detail).toMatch(
      /not supported: Errata symbolicates browser JavaScript/,
    );
  });

  it('refuses a malformed assemble request with what to fix', async () => {
    const bad = await assemble({ checksum: 'xyz', chunks: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('checksum');
  });
});

describe('listing and deleting stored maps', () => {
  it('through the management API (admin) and the CLI; a deleted bundle can be uploaded again', async () => {
    const mint = async (role: string) =>
      (await runCliJson<{ plaintext: string }>(['createtoken', '--role', role, '--project', 'web'], server.env)).plaintext;
    const [admin, triage] = [await mint('admin'), await mint('triage')];
    const path = `${server.url}/api/v1/organizations/default/projects/web/source-maps`;
    const call = async (method: string, url: string, bearer: string) => {
      const response = await fetch(url, { method, headers: { authorization: `Bearer ${bearer}` } });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    const listed = await call('GET', path, admin);
    expect(listed.body.sourceMaps.map((m: { type: string }) => m.type).sort()).toEqual(['minified_source', 'source_map']);
    expect(listed.body.total).toBe(2);
    expect((await call('GET', path, triage)).status).toBe(403);
    expect((await call('DELETE', `${path}/${debugId}`, triage)).status).toBe(403);
    const deleted = await call('DELETE', `${path}/${debugId}`, admin);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted).toHaveLength(2);
    expect(await artifacts()).toEqual([]);
    expect((await call('DELETE', `${path}/${debugId}`, admin)).status).toBe(404);

    // The same bundle uploaded again is stored again, then deleted with the CLI.
    const again = await sentryCli(['sourcemaps', 'upload', '--wait', join(work, 'dist')]);
    expect(again.code, again.stderr).toBe(0);
    expect(await artifacts()).toHaveLength(2);
    const removed = await runCliJson<{ deleted: unknown[] }>(
      ['deletesourcemaps', '--project', 'web', '--debug-id', debugId],
      server.env,
    );
    expect(removed.deleted).toHaveLength(2);
    expect(await artifacts()).toEqual([]);
  });
});

describe("a project's stored upload chunks are capped (ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT)", () => {
  it('refuses chunks beyond the cap with 429 naming the setting; a chunk already stored and other projects are not affected', async () => {
    const capped = await startServer({ env: { ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT: String(1024 * 1024) } });
    try {
      const tokens: Record<string, string> = {};
      for (const name of ['first', 'second']) {
        await runCliJson(['createproject', '--name', name], capped.env);
        tokens[name] = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', name], capped.env)).plaintext;
      }
      const post = async (project: string, chunk: Buffer) => {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(chunk)]), createHash('sha1').update(chunk).digest('hex'));
        const response = await fetch(`${capped.url}/api/0/organizations/any/chunk-upload/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens[project]}` },
          body: form,
        });
        return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
      };
      const [a, b, c] = [randomBytes(700 * 1024), randomBytes(700 * 1024), randomBytes(700 * 1024)];
      expect((await post('first', a)).status).toBe(200);
      const refused = await post('first', b);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toMatch(/^\d+$/);
      expect(JSON.parse(refused.text).detail).toMatch(/project "first".*ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT allows 1048576/);
      expect((await post('first', a)).status).toBe(200);
      expect((await post('second', c)).status).toBe(200);
    } finally {
      await stopAndRemove(capped);
    }
  });
});
