// A large generated app for the source map benchmark and the cache test: esbuild minifies
// `modules` files of 40 small functions each into one bundle with an external map (500 modules
// give a 5.0 MB map), in memory. `uploadLargeBundle` writes it out, has the real sentry-cli
// inject and upload it, and places frames, as a browser would report them, on the injected file.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatedPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { build } from 'esbuild';
import { sentryCli } from './source-map-app.ts';
import { runCliJson, type StandaloneServer } from './standalone-server.ts';

const LARGE_BUNDLE_URL = 'https://app.test/dist/main.js';

export interface LargeBundle {
  js: string;
  map: string;
  /** Original positions (source as the map names it, 1-based line) to throw from, one per frame. */
  origins: Array<{ source: string; line: number }>;
}

export async function buildLargeBundle(modules: number, frames = 20): Promise<LargeBundle> {
  const files: Record<string, string> = {};
  for (let m = 0; m < modules; m++) {
    const fns = Array.from(
      { length: 40 },
      (_, f) =>
        `export function handler${m}_${f}(input) {\n  const value = input.items[${f}] ?? ${m};\n  return value * ${f + 1} + String(input.name).length;\n}`,
    );
    files[`src/module${m}.js`] = fns.join('\n');
  }
  files['src/main.js'] = Object.keys(files)
    .map((path, i) => `import * as m${i} from './${path.slice(4)}';\nwindow.m${i} = m${i};`)
    .join('\n');
  const result = await build({
    entryPoints: ['src/main.js'],
    bundle: true,
    minify: true,
    sourcemap: 'external',
    write: false,
    outdir: 'dist',
    logLevel: 'silent',
    plugins: [
      {
        name: 'memory',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => ({
            path: args.kind === 'entry-point' ? args.path : `src/${args.path.replace(/^\.\//, '')}`,
            namespace: 'memory',
          }));
          b.onLoad({ filter: /.*/, namespace: 'memory' }, (args) => ({ contents: files[args.path]!, loader: 'js' }));
        },
      },
    ],
  });
  return {
    js: result.outputFiles.find((f) => f.path.endsWith('.js'))!.text,
    map: result.outputFiles.find((f) => f.path.endsWith('.map'))!.text,
    origins: Array.from({ length: frames }, (_, i) => ({
      source: `memory:src/module${(i * 37) % modules}.js`,
      // The `return` line of a handler: minified, the line before it has no mapping of its own.
      line: 3 + (i % 40) * 4,
    })),
  };
}

/** Writes the bundle under `dir`, injects and uploads it with sentry-cli; returns its Debug ID and frames. */
export async function uploadLargeBundle(server: StandaloneServer, project: string, dir: string, bundle: LargeBundle) {
  const dist = join(dir, 'dist');
  await mkdir(dist, { recursive: true });
  await writeFile(join(dist, 'main.js'), `${bundle.js}\n//# sourceMappingURL=main.js.map\n`);
  await writeFile(join(dist, 'main.js.map'), bundle.map);
  const token = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', project], server.env)).plaintext;
  const env = { SENTRY_URL: server.url, SENTRY_AUTH_TOKEN: token, SENTRY_PROJECT: project };
  for (const args of [
    ['sourcemaps', 'inject', dist],
    ['sourcemaps', 'upload', '--wait', dist],
  ]) {
    const result = await sentryCli(args, env);
    if (result.code !== 0) throw new Error(`sentry-cli ${args.slice(0, 2).join(' ')} failed: ${result.stderr}`);
  }
  const debugId = /\/\/# debugId=([0-9a-f-]{36})/.exec(await readFile(join(dist, 'main.js'), 'utf8'))![1]!;
  // Injection prepends a snippet, so positions come from the injected map.
  const injected = new TraceMap(await readFile(join(dist, 'main.js.map'), 'utf8'));
  const frames = bundle.origins.map((origin) => {
    const generated = generatedPositionFor(injected, { source: origin.source, line: origin.line, column: 2 });
    if (generated.line === null) throw new Error(`no generated position for ${origin.source}:${origin.line}`);
    return {
      abs_path: LARGE_BUNDLE_URL,
      filename: 'dist/main.js',
      function: 'a',
      lineno: generated.line!,
      colno: generated.column! + 1,
    };
  });
  return { debugId, frames };
}

/** An event thrown through `frames`; with a Debug ID, its debug_meta points them at the map. */
export function largeBundleEvent(frames: Array<Record<string, unknown>>, debugId: string | undefined): Record<string, unknown> {
  return {
    event_id: crypto.randomUUID().replace(/-/g, ''),
    platform: 'javascript',
    level: 'error',
    exception: { values: [{ type: 'TypeError', value: 'x is undefined', stacktrace: { frames } }] },
    ...(debugId ? { debug_meta: { images: [{ type: 'sourcemap', code_file: LARGE_BUNDLE_URL, debug_id: debugId }] } } : {}),
  };
}
