// A small two-file app for the source map suites: bundled and minified by esbuild, Debug IDs
// injected by the real sentry-cli (npm's @sentry/cli) or by the real @sentry/esbuild-plugin,
// uploadable to Errata, and runnable in Node with @sentry/node so that it throws from original
// line 2 of src/cart.js.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { sentryEsbuildPlugin } from '@sentry/esbuild-plugin';
import { REPO_ROOT, runProcess, type CommandResult } from './standalone-server.ts';

const SENTRY_CLI = join(REPO_ROOT, 'node_modules', '.bin', 'sentry-cli');

export const CART_LINE_2 = '  return cart.items.reduce((sum, item) => sum + item.price, 0);';

export interface SourceMapApp {
  dir: string;
  dist: string;
  bundle: string;
  debugId: string;
}

/** Runs the real sentry-cli against an Errata (SENTRY_URL), with an upload token. */
export function sentryCli(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return runProcess(SENTRY_CLI, args, {
    env: { ...process.env, SENTRY_ORG: 'any-org', SENTRY_DISABLE_UPDATE_CHECK: '1', SENTRY_LOG_LEVEL: 'warn', ...env },
    timeoutMs: 60_000,
  });
}

/** Writes the app's sources and bundles them, minified with a source map, into dist/app.js. */
async function bundleApp(plugins: BuildOptions['plugins'] = []): Promise<Omit<SourceMapApp, 'debugId'>> {
  const dir = await mkdtemp(join(tmpdir(), 'errata-maps-'));
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'cart.js'), `export function totalOf(cart) {\n${CART_LINE_2}\n}\n`);
  await writeFile(
    join(dir, 'src', 'app.js'),
    "import { totalOf } from './cart.js';\nexport function checkout(cart) {\n  return totalOf(cart);\n}\n",
  );
  const dist = join(dir, 'dist');
  const bundle = join(dist, 'app.js');
  await build({
    entryPoints: [join(dir, 'src', 'app.js')],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'iife',
    globalName: 'app',
    outfile: bundle,
    logLevel: 'silent',
    plugins,
  });
  return { dir, dist, bundle };
}

/** The app with Debug IDs injected by `sentry-cli sourcemaps inject`, not yet uploaded. */
export async function buildSourceMapApp(): Promise<SourceMapApp> {
  const app = await bundleApp();
  const injected = await sentryCli(['sourcemaps', 'inject', app.dist], {});
  if (injected.code !== 0) throw new Error(`sentry-cli sourcemaps inject failed: ${injected.stderr}`);
  const debugId = /\/\/# debugId=([0-9a-f-]{36})/.exec(await readFile(app.bundle, 'utf8'))?.[1];
  if (!debugId) throw new Error('sentry-cli injected no debugId comment');
  return { ...app, debugId };
}

/**
 * The app built by esbuild with @sentry/esbuild-plugin, configured as its README says for a
 * self-hosted server: the plugin injects Debug IDs and uploads through its own sentry-cli (2.x).
 * Releases are left alone (Errata has no release API) and telemetry is off (no network here).
 */
export async function buildWithEsbuildPlugin(upload: { url: string; token: string; project: string }): Promise<SourceMapApp> {
  const errors: string[] = [];
  const app = await bundleApp([
    sentryEsbuildPlugin({
      url: upload.url,
      authToken: upload.token,
      org: 'any-org',
      project: upload.project,
      telemetry: false,
      silent: true,
      release: { create: false, finalize: false, inject: false },
      errorHandler: (error) => void errors.push(String(error)),
    }),
  ]);
  if (errors.length > 0) throw new Error(`@sentry/esbuild-plugin failed: ${errors.join('; ')}`);
  // The plugin's runtime snippet names the Debug ID as "sentry-dbid-<id>".
  const debugId = /sentry-dbid-([0-9a-f-]{36})/.exec(await readFile(app.bundle, 'utf8'))?.[1];
  if (!debugId) throw new Error('@sentry/esbuild-plugin injected no Debug ID');
  return { ...app, debugId };
}

// The bundle run in Node with @sentry/node, which reports the injected Debug IDs in debug_meta.
const RUN = `
  const Sentry = require('@sentry/node');
  const { readFileSync } = require('node:fs');
  const vm = require('node:vm');
  const [dsn, file] = process.argv.slice(1);
  Sentry.init({ dsn, release: 'web@1.0.0' });
  vm.runInThisContext(readFileSync(file, 'utf8'), { filename: file });
  try { app.checkout({ id: 1 }); } catch (error) { Sentry.captureException(error); }
  Sentry.flush(10000).then((ok) => process.exit(ok ? 0 : 1));`;

/** Makes the bundle throw once and report it to the DSN. */
export async function throwFromBundle(app: SourceMapApp, dsn: string): Promise<void> {
  const ran = await runProcess(process.execPath, ['-e', RUN, dsn, app.bundle], { cwd: REPO_ROOT });
  if (ran.code !== 0) throw new Error(`the bundle run failed (${ran.code}): ${ran.stderr}`);
}
