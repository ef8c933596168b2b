// The source map upload protocol with the real tools: a small multi-file app bundled and
// minified by esbuild, Debug IDs injected by the real `sentry-cli sourcemaps inject`, uploaded
// by the real `sentry-cli sourcemaps upload` to a running Errata with an upload token.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  REPO_ROOT,
  runCliJson,
  runProcess,
  startServer,
  stopAndRemove,
  type StandaloneServer,
} from '../support/standalone-server.ts';

const SENTRY_CLI = join(REPO_ROOT, 'node_modules', '.bin', 'sentry-cli');

let server: StandaloneServer;
let work: string;
let token: string;
let debugId: string;

interface Artifact {
  debugId: string;
  type: string;
  url: string;
  sizeBytes: number;
  uploadedAt: string;
}

function sentryCli(args: string[], env: Record<string, string> = {}) {
  return runProcess(SENTRY_CLI, args, {
    env: {
      ...process.env,
      SENTRY_URL: server.url,
      SENTRY_AUTH_TOKEN: token,
      SENTRY_ORG: 'any-org',
      SENTRY_PROJECT: 'web',
      SENTRY_DISABLE_UPDATE_CHECK: '1',
      SENTRY_LOG_LEVEL: 'warn',
      ...env,
    },
    timeoutMs: 60_000,
  });
}

const artifacts = async (project = 'web') =>
  (await runCliJson<{ artifacts: Artifact[] }>(['listsourcemaps', '--project', project], server.env)).artifacts;

beforeAll(async () => {
  server = await startServer();
  for (const name of ['web', 'shop']) await runCliJson(['createproject', '--name', name], server.env);
  token = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', 'web'], server.env)).plaintext;
  work = await mkdtemp(join(tmpdir(), 'errata-maps-'));
  await mkdir(join(work, 'src'));
  await writeFile(
    join(work, 'src', 'cart.js'),
    'export function totalOf(cart) {\n  return cart.items.reduce((sum, item) => sum + item.price, 0);\n}\n',
  );
  await writeFile(
    join(work, 'src', 'app.js'),
    "import { totalOf } from './cart.js';\nexport function checkout(cart) {\n  return totalOf(cart);\n}\n",
  );
  await build({
    entryPoints: [join(work, 'src', 'app.js')],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'iife',
    globalName: 'app',
    outfile: join(work, 'dist', 'app.js'),
    logLevel: 'silent',
  });
  const injected = await sentryCli(['sourcemaps', 'inject', join(work, 'dist')]);
  expect(injected.code, injected.stderr).toBe(0);
  debugId = /\/\/# debugId=([0-9a-f-]{36})/.exec(await readFile(join(work, 'dist', 'app.js'), 'utf8'))![1]!;
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
