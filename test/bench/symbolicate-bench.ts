// npm run bench:symbolicate — the cost of symbolication on a bundle esbuild minifies from
// generated sources, with a large (~5 MB) source map. First the pure step: parsing the map once
// (time and heap) and rewriting frames with it once parsed (frames per second). Then, end to
// end on a standalone server (symbolicate-e2e.ts; BENCH_E2E=0 skips it), ingest-to-issue
// latency with symbolication on versus off. Prints figures; asserts nothing.
import { generatedPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import type { NormalizedEvent } from '../../services/core/event/event.ts';
import { parseSourceMap, symbolicateEvent } from '../../services/core/sourcemaps/symbolicate.ts';
import { buildLargeBundle } from '../support/large-bundle.ts';
import { measureIngestToIssue } from './symbolicate-e2e.ts';

const MODULES = Number(process.env.BENCH_MODULES ?? 500);
const FRAMES = 20;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const DEBUG_ID = '0f3c1e2a-8b9d-4c5e-9f00-112233445566';

const bundle = await buildLargeBundle(MODULES, FRAMES);
const mapText = bundle.map;
const origins = bundle.origins;

// Frames at the generated positions of real original functions, as a browser would report them.
// Found with a map of their own: the reverse index generatedPositionFor builds is as large as
// the map, and symbolication never builds it, so it must not count in the heap measured below.
const reverse = new TraceMap(mapText);
const positions = origins.map((origin) => {
  const generated = generatedPositionFor(reverse, { ...origin, column: 2 });
  if (generated.line === null) throw new Error(`no generated position for ${origin.source}:${origin.line}`);
  return { lineno: generated.line, colno: generated.column + 1 };
});
globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const started = performance.now();
const parsed = parseSourceMap(mapText, '~/dist/main.js.map');
const parseMs = performance.now() - started;

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

if (process.env.BENCH_E2E !== '0') await measureIngestToIssue(bundle);
