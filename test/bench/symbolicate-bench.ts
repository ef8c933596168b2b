// npm run bench:symbolicate — the pure cost of symbolication: parsing a large (~5 MB) source
// map once (time and heap), and rewriting frames with it once parsed (frames per second), on
// a bundle esbuild minifies from generated sources. Prints figures; asserts nothing.
// Not measured here yet: ingest-to-issue latency with symbolication on versus off.
import { build } from 'esbuild';
import { generatedPositionFor } from '@jridgewell/trace-mapping';
import type { NormalizedEvent } from '../../services/core/event/event.ts';
import { parseSourceMap, symbolicateEvent } from '../../services/core/sourcemaps/symbolicate.ts';

const MODULES = Number(process.env.BENCH_MODULES ?? 400);
const FRAMES = 20;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const DEBUG_ID = '0f3c1e2a-8b9d-4c5e-9f00-112233445566';

// Generated sources: MODULES files of 40 small functions each, all reachable from the entry.
const files: Record<string, string> = {};
for (let m = 0; m < MODULES; m++) {
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
const mapText = result.outputFiles.find((f) => f.path.endsWith('.map'))!.text;

globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const started = performance.now();
const parsed = parseSourceMap(mapText, '~/dist/main.js.map');
const parseMs = performance.now() - started;

// Frames at the generated positions of real original functions, as a browser would report them.
const positions = Array.from({ length: FRAMES }, (_, i) => {
  const module = (i * 37) % MODULES;
  const generated = generatedPositionFor(parsed.map, {
    source: `memory:src/module${module}.js`,
    line: 2 + (i % 40) * 4,
    column: 2,
  });
  return { lineno: (generated.line ?? 1) || 1, colno: (generated.column ?? 0) + 1 };
});
function event(): NormalizedEvent {
  return {
    event_id: 'a'.repeat(32),
    timestamp: 0,
    received: 0,
    type: 'error',
    platform: 'javascript',
    level: 'error',
    tags: {},
    contexts: {},
    exception: {
      values: [
        {
          type: 'TypeError',
          value: 'x',
          stacktrace: {
            frames: positions.map((p) => ({
              abs_path: 'https://app.test/dist/main.js',
              filename: 'dist/main.js',
              function: 'a',
              ...p,
            })),
          },
        },
      ],
    },
    debug_meta: { images: [{ type: 'sourcemap', code_file: 'https://app.test/dist/main.js', debug_id: DEBUG_ID }] },
  };
}
const maps = new Map([[DEBUG_ID, parsed]]);
// The mappings are decoded on the first lookup: that is part of loading a map.
const firstStarted = performance.now();
symbolicateEvent(event(), maps);
const firstMs = performance.now() - firstStarted;
globalThis.gc?.();
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
let frames = 0;
for (let i = 0; i < 200; i++) symbolicateEvent(event(), maps); // warm-up
const warmStarted = performance.now();
for (let i = 0; i < EVENTS; i++) frames += symbolicateEvent(event(), maps).framesSymbolicated;
const warmSeconds = (performance.now() - warmStarted) / 1000;

console.log(
  `symbolicate benchmark: ${MODULES} modules, map ${(mapText.length / 1024 / 1024).toFixed(1)} MB, ${EVENTS} events of ${FRAMES} frames`,
);
console.log(
  `cold: parse ${parseMs.toFixed(0)} ms, then the first event (it decodes the mappings) ${firstMs.toFixed(0)} ms; ` +
    `the parsed map holds ${heapMb.toFixed(0)} MB of heap${globalThis.gc ? '' : ' (run with node --expose-gc for a steadier figure)'}`,
);
console.log(`warm: ${(frames / warmSeconds).toFixed(0)} frames/s (${frames} frames symbolicated of ${EVENTS * FRAMES})`);
