import { runInNewContext } from 'node:vm';
import { generatedPositionFor } from '@jridgewell/trace-mapping';
import { build, type Plugin } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DebugImage, Frame, NormalizedEvent } from '../event/event.ts';
import { addJavaScriptModules } from '../event/js-module.ts';
import { normalizeEvent } from '../event/normalize-event.ts';
import { frameValues } from '../grouping/frame-values.ts';
import { debugIdsNeeded } from './maps-needed.ts';
import {
  CONTEXT_CHARACTERS,
  parseSourceMap,
  SourceMapError,
  symbolicateEvent,
  trimLine,
  type ParsedSourceMap,
} from './symbolicate.ts';

const DEBUG_ID = '2f0a3d7e-95b1-4c3e-8a6f-0d1e2c3b4a59';
const OTHER_ID = 'c0ffee00-1234-4abc-9def-001122334455';
const BUNDLE_URL = 'https://shop.example/static/bundle.js';

// The original sources, bundled and minified by esbuild into one line.
const SOURCES: Record<string, string> = {
  'src/cart.js': `export class Cart {
  constructor(items) {
    this.items = items;
  }
  total() {
    return this.items.reduce((sum, item) => sum + priceOf(item), 0);
  }
}

function priceOf(item) {
  if (item.price < 0) {
    throw new Error('negative price for ' + item.name);
  }
  return item.price * item.quantity;
}
`,
  'src/app.js': `import { Cart } from './cart.js';

export function checkout(items) {
  const cart = new Cart(items);
  const total = cart.total();
  return { total };
}

checkout([{ name: 'apple', price: 1, quantity: 2 }, { name: 'broken', price: -1, quantity: 1 }]);
`,
};
const THROW_LINE = 12; // `throw new Error(...)` in src/cart.js
const lineOf = (file: string, lineno: number) => SOURCES[file]!.split('\n')[lineno - 1]!;

/** Serves SOURCES from memory, so the bundle needs no files on disk. */
const inMemory: Plugin = {
  name: 'in-memory',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => ({
      path: `/virtual/${args.kind === 'entry-point' ? args.path : `src/${args.path.replace(/^\.\//, '')}`}`,
    }));
    build.onLoad({ filter: /.*/ }, (args) => ({ contents: SOURCES[args.path.slice('/virtual/'.length)]!, loader: 'js' }));
  },
};

let bundle: string;
let mapJson: string;
let parsed: ParsedSourceMap;

beforeAll(async () => {
  const result = await build({
    entryPoints: ['src/app.js'],
    absWorkingDir: '/virtual',
    outfile: '/virtual/bundle.js',
    bundle: true,
    minify: true,
    format: 'iife',
    sourcemap: 'external',
    write: false,
    logLevel: 'silent',
    plugins: [inMemory],
  });
  bundle = result.outputFiles.find((file) => file.path.endsWith('.js'))!.text;
  mapJson = result.outputFiles.find((file) => file.path.endsWith('.map'))!.text;
  parsed = parseSourceMap(mapJson);
});

function makeEvent(fields: Partial<NormalizedEvent> = {}): NormalizedEvent {
  return {
    event_id: 'a'.repeat(32),
    timestamp: 1_700_000_000,
    received: 1_700_000_000,
    type: 'error',
    platform: 'javascript',
    level: 'error',
    tags: {},
    contexts: {},
    ...fields,
  };
}

const sourceMapImage = (code_file: string, debug_id = DEBUG_ID): DebugImage => ({ type: 'sourcemap', code_file, debug_id });

function exceptionEvent(frames: Frame[], images: DebugImage[] = [sourceMapImage(BUNDLE_URL)]): NormalizedEvent {
  return makeEvent({
    exception: { values: [{ type: 'Error', value: 'negative price for broken', stacktrace: { frames } }] },
    debug_meta: { images },
  });
}

/** The minified frame for an original position, via the map itself: deterministic. */
function minifiedFrame(file: string, line: number, column: number, fields: Partial<Frame> = {}): Frame {
  const generated = generatedPositionFor(parsed.map, { source: file, line, column });
  if (generated.line === null) throw new Error(`${file}:${line}:${column} is not mapped`);
  return {
    abs_path: BUNDLE_URL,
    filename: '/static/bundle.js',
    lineno: generated.line,
    colno: generated.column + 1,
    in_app: true,
    ...fields,
  };
}

/** Frames as a Sentry SDK reports them (oldest first) from a V8 `stack`. */
function framesFromStack(stack: string): Frame[] {
  const frames: Frame[] = [];
  for (const line of stack.split('\n')) {
    const match = /^\s+at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (!match) continue;
    const frame: Frame = { abs_path: match[2]!, lineno: Number(match[3]), colno: Number(match[4]), in_app: true };
    if (match[1]) frame.function = match[1];
    frames.push(frame);
  }
  return frames.reverse();
}

const maps = (map: ParsedSourceMap = parsed, id = DEBUG_ID) => new Map([[id, map]]);

describe('parseSourceMap', () => {
  it('rejects what is not JSON', () => {
    expect(() => parseSourceMap('not a map')).toThrow(SourceMapError);
    expect(() => parseSourceMap('not a map')).toThrow(/not valid JSON/);
    expect(() => parseSourceMap('[1, 2]')).toThrow(/not a JSON object/);
  });

  it('rejects maps that are not version 3', () => {
    expect(() => parseSourceMap(JSON.stringify({ version: 2, sources: [], names: [], mappings: '' }))).toThrow(
      /unsupported source map version 2 \(only version 3/,
    );
    expect(() => parseSourceMap(JSON.stringify({ sources: [], mappings: '' }))).toThrow(/version undefined/);
  });

  it('rejects maps without sources or with garbage mappings', () => {
    expect(() => parseSourceMap(JSON.stringify({ version: 3, mappings: 'AAAA' }))).toThrow(/no "sources" array/);
    expect(() => parseSourceMap(JSON.stringify({ version: 3, sources: ['a.js'] }))).toThrow(/no "mappings" string/);
    expect(() => parseSourceMap(JSON.stringify({ version: 3, sources: ['a.js'], mappings: '!!!' }))).toThrow(/not base64 VLQ/);
  });

  it('rejects a map of more generated lines than a section may start at: each is an array in the heap', () => {
    const lines = (n: number) => JSON.stringify({ version: 3, sources: ['a.js'], mappings: ';'.repeat(n - 1) });
    expect(() => parseSourceMap(lines(1_000_001))).toThrow(/"mappings" runs past line 1000000/);
    expect(() => parseSourceMap(lines(1_000_000))).not.toThrow();
  });

  it('rejects sources, names and the source root that are not text, which symbolication reads as text', () => {
    const map = (fields: object) => JSON.stringify({ version: 3, sources: ['a.js'], mappings: 'AAAA', ...fields });
    expect(() => parseSourceMap(map({ sources: [1] }))).toThrow(/"sources" must be a list of strings \(or null\)/);
    expect(() => parseSourceMap(map({ names: [1] }))).toThrow(/"names" must be a list of strings$/);
    expect(() => parseSourceMap(map({ names: [null] }))).toThrow(/"names" must be a list of strings$/);
    expect(() => parseSourceMap(map({ sourcesContent: [{}] }))).toThrow(/"sourcesContent" must be a list/);
    expect(() => parseSourceMap(map({ sourceRoot: 1 }))).toThrow(/"sourceRoot" is not a string/);
    expect(() => parseSourceMap(map({ sources: [null], sourcesContent: [null], names: [], sourceRoot: null }))).not.toThrow();
  });

  it('reads bytes, skips an XSSI guard line and keeps the URL', () => {
    const map = parseSourceMap(new TextEncoder().encode(`)]}'\n${mapJson}`), 'https://shop.example/static/bundle.js.map');
    expect(map.url).toBe('https://shop.example/static/bundle.js.map');
    expect(map.map.sources).toEqual(['src/cart.js', 'src/app.js']);
  });

  it('flattens an indexed map (sections)', () => {
    const indexed = JSON.stringify({
      version: 3,
      sections: [
        { offset: { line: 0, column: 0 }, map: { version: 3, sources: ['a.js'], names: [], mappings: 'AAAA' } },
        { offset: { line: 1, column: 0 }, map: { version: 3, sources: ['b.js'], names: [], mappings: 'AAAA' } },
      ],
    });
    const event = exceptionEvent([{ abs_path: BUNDLE_URL, lineno: 2, colno: 1 }]);
    symbolicateEvent(event, maps(parseSourceMap(indexed)));
    expect(event.exception!.values[0]!.stacktrace!.frames[0]).toMatchObject({ filename: 'b.js', lineno: 1, colno: 1 });
  });

  it('refuses sections that would make trace-mapping build an array for every line up to a billion', () => {
    const inner = { version: 3, sources: ['a'], mappings: 'AAAA' };
    const sections = (...list: unknown[]) => JSON.stringify({ version: 3, sections: list });
    // 150 bytes that took the dispatcher's heap whole (an array per line before the section).
    expect(() => parseSourceMap(sections({ offset: { line: 1e9, column: 0 }, map: inner }))).toThrow(/past line 1000000/);
    // Nested offsets add up.
    const nested = { version: 3, sections: [{ offset: { line: 600_000, column: 0 }, map: inner }] };
    expect(() => parseSourceMap(sections({ offset: { line: 600_000, column: 0 }, map: nested }))).toThrow(/past line/);
    expect(() => parseSourceMap(sections({ offset: { line: -1, column: 0 }, map: inner }))).toThrow(/non-negative/);
    expect(() => parseSourceMap(sections({ offset: { line: 1.5, column: 0 }, map: inner }))).toThrow(/whole/);
    expect(() => parseSourceMap(sections({ map: inner }))).toThrow(/offset/);
    expect(() =>
      parseSourceMap(sections({ offset: { line: 5, column: 0 }, map: inner }, { offset: { line: 2, column: 0 }, map: inner })),
    ).toThrow(/not in order/);
    expect(() => parseSourceMap(sections({ offset: { line: 0, column: 0 }, map: { ...inner, mappings: '!!' } }))).toThrow(
      /not base64 VLQ/,
    );
    expect(() => parseSourceMap(sections({ offset: { line: 0, column: 0 }, url: 'a.map' }))).toThrow(/no "map" object/);
    let deep: object = inner;
    for (let i = 0; i < 5; i++) deep = { version: 3, sections: [{ offset: { line: 0, column: 0 }, map: deep }] };
    expect(() => parseSourceMap(JSON.stringify(deep))).toThrow(/nest deeper/);
    // Within the bounds, read as before.
    expect(parseSourceMap(sections({ offset: { line: 999_999, column: 0 }, map: inner })).map.sources).toEqual(['a']);
  });

  it('refuses what trace-mapping would loop over by its "length": sections and ignore lists that are not lists', () => {
    const inner = { version: 3, sources: ['a'], mappings: 'AAAA' };
    // trace-mapping takes any map with a "sections" key as sectioned and reads sections.length:
    // an object standing for a list slipped past the offset check (taken for a flat map).
    const likeAList = {
      version: 3,
      sources: [],
      mappings: '',
      sections: { length: 1, 0: { offset: { line: 2_000_000, column: 0 }, map: inner } },
    };
    expect(() => parseSourceMap(JSON.stringify(likeAList))).toThrow(/"sections" is not a list/);
    // It pushes every entry of a section's ignore list up to its "length" (10^9 of them took the heap).
    for (const key of ['ignoreList', 'x_google_ignoreList']) {
      const section = { offset: { line: 0, column: 0 }, map: { ...inner, [key]: { length: 3 } } };
      expect(() => parseSourceMap(JSON.stringify({ version: 3, sections: [section] }))).toThrow(
        new RegExp(`"${key}" must be a list of source indexes`),
      );
      expect(() => parseSourceMap(JSON.stringify({ ...inner, [key]: [0, 'x'] }))).toThrow(/must be a list of source indexes/);
      expect(parseSourceMap(JSON.stringify({ ...inner, [key]: [0] })).map.sources).toEqual(['a']);
    }
  });
});

describe('debugIdsNeeded', () => {
  it('matches code_file exactly against abs_path, without a leading "async "', () => {
    const event = exceptionEvent(
      [
        { abs_path: `async ${BUNDLE_URL}`, lineno: 1, colno: 1 },
        { abs_path: 'https://shop.example/static/vendor.js', lineno: 1, colno: 1 },
        { abs_path: 'https://shop.example/static/other.js?v=2', lineno: 1, colno: 1 },
        { filename: 'no-abs-path.js', lineno: 1 },
      ],
      [
        sourceMapImage(BUNDLE_URL, DEBUG_ID.toUpperCase()),
        { type: 'macho', code_file: 'https://shop.example/static/vendor.js', debug_id: OTHER_ID },
        sourceMapImage('https://shop.example/static/other.js', OTHER_ID),
        sourceMapImage('https://shop.example/static/unused.js', OTHER_ID),
      ],
    );
    expect(debugIdsNeeded(event)).toEqual(new Map([[BUNDLE_URL, DEBUG_ID]]));
  });

  it('looks at the event-level stacktrace and ignores invalid debug ids', () => {
    const event = makeEvent({
      stacktrace: {
        frames: [
          { abs_path: BUNDLE_URL, lineno: 1 },
          { abs_path: 'app:///main.js', lineno: 1 },
        ],
      },
      debug_meta: { images: [sourceMapImage(BUNDLE_URL, DEBUG_ID.replace(/-/g, '')), sourceMapImage('app:///main.js', 'nope')] },
    });
    expect(debugIdsNeeded(event)).toEqual(new Map([[BUNDLE_URL, DEBUG_ID]]));
  });

  it('matches a script at a URL longer than a frame keeps, as normalized', () => {
    // A signed CDN URL: the frame's abs_path is cut at 1024 characters, the image's code_file at 2048.
    for (const length of [1500, 3000]) {
      const url = `${BUNDLE_URL}?signature=${'s'.repeat(length)}`;
      const event = normalizeEvent(
        {
          platform: 'javascript',
          exception: { values: [{ type: 'Error', stacktrace: { frames: [{ abs_path: url, lineno: 1, colno: 1 }] } }] },
          debug_meta: { images: [sourceMapImage(url, DEBUG_ID)] },
        },
        { eventId: 'f'.repeat(32), receivedAt: 0 },
      );
      expect([...debugIdsNeeded(event).values()]).toEqual([DEBUG_ID]);
    }
  });

  it('is empty without images or once symbolicated', () => {
    expect(debugIdsNeeded(exceptionEvent([{ abs_path: BUNDLE_URL, lineno: 1 }], []))).toEqual(new Map());
    const event = exceptionEvent([minifiedFrame('src/cart.js', THROW_LINE, 4)]);
    symbolicateEvent(event, maps());
    expect(debugIdsNeeded(event)).toEqual(new Map());
  });
});

describe('symbolicateEvent with an esbuild bundle', () => {
  it('maps a frame back to the original file, line, column and source context', () => {
    const frame = minifiedFrame('src/cart.js', THROW_LINE, 4);
    const event = exceptionEvent([frame]);
    const original = structuredClone(event.exception!.values[0]!.stacktrace);

    const result = symbolicateEvent(event, maps());

    expect(result).toEqual({ usedDebugIds: new Set([DEBUG_ID]), framesSymbolicated: 1 });
    const exception = event.exception!.values[0]!;
    expect(exception.raw_stacktrace).toEqual(original);
    expect(exception.stacktrace!.frames[0]).toEqual({
      filename: 'src/cart.js',
      abs_path: 'https://shop.example/static/src/cart.js',
      lineno: THROW_LINE,
      colno: 5,
      in_app: true,
      pre_context: [7, 8, 9, 10, 11].map((line) => lineOf('src/cart.js', line)),
      context_line: lineOf('src/cart.js', THROW_LINE),
      post_context: [13, 14, 15].map((line) => lineOf('src/cart.js', line)),
      module: 'src/cart',
      data: { sourcemap: DEBUG_ID, symbolicated: true, resolved_with: 'debug-id' },
    });
  });

  it('adds at most CONTEXT_CHARACTERS of source context to an event, innermost frames first', () => {
    // 25 exceptions of 250 small frames into one map: eleven lines each made an event of a few
    // hundred KB into several MB.
    const event = exceptionEvent([]);
    event.exception!.values = Array.from({ length: 25 }, () => ({
      type: 'Error',
      value: 'deep',
      stacktrace: { frames: Array.from({ length: 250 }, () => minifiedFrame('src/cart.js', THROW_LINE, 4)) },
    }));
    expect(symbolicateEvent(event, maps()).framesSymbolicated).toBe(6_250);
    const frames = event.exception!.values.flatMap((exception) => exception.stacktrace!.frames);
    expect(frames.every((frame) => frame.lineno === THROW_LINE && frame.filename === 'src/cart.js')).toBe(true);
    const context = (frame: Frame) =>
      [...(frame.pre_context ?? []), frame.context_line ?? '', ...(frame.post_context ?? [])].join('').length;
    const added = frames.reduce((sum, frame) => sum + context(frame), 0);
    expect(added).toBeGreaterThan(CONTEXT_CHARACTERS - context(frames.at(-1)!));
    expect(added).toBeLessThanOrEqual(CONTEXT_CHARACTERS);
    expect(frames.at(-1)!.context_line).toBe(lineOf('src/cart.js', THROW_LINE));
    expect(frames[0]!.context_line).toBeUndefined();
  });

  /** The bundle's own frames of the stack V8 reports when it throws. */
  function bundleFrames(): Frame[] {
    let stack = '';
    try {
      runInNewContext(bundle, {}, { filename: BUNDLE_URL });
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    return framesFromStack(stack).filter((frame) => frame.abs_path === BUNDLE_URL);
  }

  it('symbolicates the stack V8 reports when the bundle throws', () => {
    const frames = bundleFrames();
    expect(frames.length).toBeGreaterThanOrEqual(4);
    const event = exceptionEvent(structuredClone(frames));

    const { framesSymbolicated } = symbolicateEvent(event, maps());

    expect(framesSymbolicated).toBe(frames.length);
    const after = event.exception!.values[0]!.stacktrace!.frames;
    const crash = after[after.length - 1]!;
    expect(crash).toMatchObject({ filename: 'src/cart.js', lineno: THROW_LINE, function: 'priceOf' });
    expect(crash.context_line).toBe(lineOf('src/cart.js', THROW_LINE));
    // The frame of `checkout`, named by its caller's call site (the minified name is one letter).
    const checkout = after.find((frame) => frame.filename === 'src/app.js' && frame.lineno === 5)!;
    expect(checkout.function).toBe('checkout');
    expect(checkout.context_line).toBe('  const total = cart.total();');
    // `cart.total()` is a property call: the map has no name for it, so the minified one stays.
    const total = after.find(
      (frame) => frame.filename === 'src/cart.js' && frame.lineno === 6 && frame.function?.endsWith('.total'),
    );
    expect(total).toBeDefined();
    expect(event.exception!.values[0]!.raw_stacktrace!.frames).toEqual(frames);
  });

  it('does not name the frame after the frames a long trace left out by the frame before them', () => {
    const frames = bundleFrames();
    const named = (event: NormalizedEvent) => event.exception!.values[0]!.stacktrace!.frames.map((frame) => frame.function);
    const whole = exceptionEvent(structuredClone(frames));
    symbolicateEvent(whole, maps());
    const at = named(whole).indexOf('checkout');
    expect(at).toBeGreaterThan(0);
    // The frames between its caller and it were left out (a trace of more than 250 frames).
    const cut = exceptionEvent(structuredClone(frames));
    cut.exception!.values[0]!.stacktrace!.frames_omitted = [at, at + 100];
    symbolicateEvent(cut, maps());
    expect(named(cut)[at]).toBe(frames[at]!.function);
    expect(named(cut).filter((name, i) => i !== at)).toEqual(named(whole).filter((name, i) => i !== at));
  });

  it('keeps the minified function name when no caller names it', () => {
    const event = exceptionEvent([minifiedFrame('src/cart.js', THROW_LINE, 4, { function: 'o' })]);
    symbolicateEvent(event, maps());
    expect(event.exception!.values[0]!.stacktrace!.frames[0]!.function).toBe('o');
  });

  it('leaves frames without an image, without a map, or without a valid line as they are', () => {
    const frames: Frame[] = [
      { abs_path: 'https://shop.example/static/vendor.js', lineno: 1, colno: 10 },
      { abs_path: BUNDLE_URL, lineno: 0, colno: 10 },
      { abs_path: BUNDLE_URL, colno: 10 },
      { abs_path: BUNDLE_URL, lineno: 40, colno: 1 },
    ];
    const event = exceptionEvent(structuredClone(frames));
    expect(symbolicateEvent(event, maps())).toEqual({ usedDebugIds: new Set(), framesSymbolicated: 0 });
    expect(event.exception!.values[0]).not.toHaveProperty('raw_stacktrace');
    expect(event.exception!.values[0]!.stacktrace!.frames).toEqual(frames);

    const noMap = exceptionEvent([minifiedFrame('src/cart.js', THROW_LINE, 4)]);
    expect(symbolicateEvent(noMap, maps(parsed, OTHER_ID)).framesSymbolicated).toBe(0);
  });

  it('rewrites every exception of a chain, each keeping its own raw frames', () => {
    const event = makeEvent({
      exception: {
        values: [
          { type: 'TypeError', stacktrace: { frames: [{ abs_path: 'https://other.example/x.js', lineno: 3, colno: 1 }] } },
          { type: 'Error', stacktrace: { frames: [minifiedFrame('src/app.js', 5, 21)] } },
          { type: 'Error', stacktrace: { frames: [minifiedFrame('src/cart.js', THROW_LINE, 4)] } },
        ],
      },
      debug_meta: { images: [sourceMapImage(BUNDLE_URL)] },
    });
    const { framesSymbolicated } = symbolicateEvent(event, maps());
    expect(framesSymbolicated).toBe(2);
    const [first, second, third] = event.exception!.values;
    expect(first).not.toHaveProperty('raw_stacktrace');
    expect(second!.stacktrace!.frames[0]).toMatchObject({ filename: 'src/app.js', lineno: 5 });
    expect(third!.stacktrace!.frames[0]).toMatchObject({ filename: 'src/cart.js', lineno: THROW_LINE });
    expect(second!.raw_stacktrace!.frames[0]!.abs_path).toBe(BUNDLE_URL);
    expect(third!.raw_stacktrace!.frames[0]!.abs_path).toBe(BUNDLE_URL);
  });

  it('rewrites the event-level stacktrace too, marking its frames instead of keeping raw ones', () => {
    const event = makeEvent({
      stacktrace: { frames: [minifiedFrame('src/cart.js', THROW_LINE, 4)] },
      debug_meta: { images: [sourceMapImage(BUNDLE_URL)] },
    });
    expect(symbolicateEvent(event, maps()).framesSymbolicated).toBe(1);
    expect(event.stacktrace!.frames[0]).toMatchObject({ filename: 'src/cart.js', data: { symbolicated: true } });
  });

  it('is idempotent', () => {
    const event = exceptionEvent([minifiedFrame('src/app.js', 9, 0), minifiedFrame('src/cart.js', THROW_LINE, 4)]);
    event.stacktrace = { frames: [minifiedFrame('src/cart.js', THROW_LINE, 4)] };
    expect(symbolicateEvent(event, maps()).framesSymbolicated).toBe(3);
    const once = structuredClone(event);
    expect(symbolicateEvent(event, maps())).toEqual({ usedDebugIds: new Set(), framesSymbolicated: 0 });
    expect(event).toEqual(once);
  });

  it('resolves abs_path against the map URL when given, and labels frames with it', () => {
    const withUrl = parseSourceMap(mapJson, 'https://cdn.example/maps/bundle.js.map');
    const event = exceptionEvent([minifiedFrame('src/cart.js', THROW_LINE, 4)]);
    symbolicateEvent(event, maps(withUrl));
    expect(event.exception!.values[0]!.stacktrace!.frames[0]).toMatchObject({
      abs_path: 'https://cdn.example/maps/src/cart.js',
      data: { sourcemap: 'https://cdn.example/maps/bundle.js.map' },
    });
  });

  it('replaces the module derived from the bundle URL, so grouping sees the original file', () => {
    const event = exceptionEvent([minifiedFrame('src/cart.js', THROW_LINE, 4, { function: 'o' })]);
    addJavaScriptModules(event);
    expect(event.exception!.values[0]!.stacktrace!.frames[0]!.module).toBe('bundle');
    symbolicateEvent(event, maps());
    const frame = event.exception!.values[0]!.stacktrace!.frames[0]!;
    expect(frame.module).toBe('src/cart');
    // With a source map and a context line, grouping ignores the (minified) function name.
    expect(frameValues(frame, 'javascript')).toEqual(['src/cart', "throw new Error('negative price for ' + item.name);"]);
  });
});

describe('symbolicateEvent with hand-written maps', () => {
  // `AAAA` maps generated 1:1 to source 0, 1:1; `EAAA` the same from generated column 3.
  const map = (fields: Record<string, unknown>) =>
    parseSourceMap(JSON.stringify({ version: 3, names: [], mappings: 'AAAA', ...fields }));
  const symbolicateOne = (frame: Frame, parsedMap: ParsedSourceMap, platform = 'javascript') => {
    const event = exceptionEvent([frame], [sourceMapImage(frame.abs_path!.replace(/^async /, ''))]);
    event.platform = platform;
    symbolicateEvent(event, maps(parsedMap));
    return event.exception!.values[0]!.stacktrace!.frames[0]!;
  };

  it('gives a frame in the second section of an indexed map its own file, though both sections name it alike', () => {
    const section = (line: number, content: string) => ({
      offset: { line, column: 0 },
      map: { version: 3, names: [], sources: ['../src/index.ts'], sourcesContent: [content], mappings: 'AAAA' },
    });
    const indexed = parseSourceMap(
      JSON.stringify({ version: 3, sections: [section(0, 'first build();\n'), section(1, 'second build();\n')] }),
    );
    const frame = symbolicateOne({ abs_path: BUNDLE_URL, lineno: 2, colno: 1 }, indexed);
    expect(frame).toMatchObject({ filename: '../src/index.ts', lineno: 1, context_line: 'second build();' });
  });

  it('keeps positions but gives no context without sourcesContent, dropping context from the bundle', () => {
    const frame = symbolicateOne(
      { abs_path: BUNDLE_URL, lineno: 1, colno: 7, context_line: 'minified;code;', pre_context: ['x'], post_context: ['y'] },
      map({ sources: ['src/index.ts'] }),
    );
    expect(frame).toMatchObject({ filename: 'src/index.ts', lineno: 1, colno: 1 });
    expect(frame).not.toHaveProperty('context_line');
    expect(frame).not.toHaveProperty('pre_context');
    expect(frame).not.toHaveProperty('post_context');
  });

  it('cleans webpack:// paths and keeps the full one as abs_path', () => {
    const frame = symbolicateOne(
      { abs_path: BUNDLE_URL, lineno: 1, colno: 1, in_app: true },
      map({ sources: ['webpack://my-app/./src/index.js'], sourcesContent: ['run();\n'] }),
    );
    expect(frame).toMatchObject({
      filename: 'src/index.js',
      abs_path: 'webpack://my-app/./src/index.js',
      module: 'src/index',
      context_line: 'run();',
      in_app: true,
    });
    expect(symbolicateOne({ abs_path: BUNDLE_URL, lineno: 1 }, map({ sources: ['webpack:///./lib/a.js'] })).filename).toBe(
      'lib/a.js',
    );
  });

  it('marks sources under node_modules as not in-app, recording the SDK value', () => {
    const frame = symbolicateOne(
      { abs_path: BUNDLE_URL, lineno: 1, colno: 1, in_app: true },
      map({ sources: ['webpack://my-app/./node_modules/lib/index.js'] }),
    );
    expect(frame).toMatchObject({ filename: 'node_modules/lib/index.js', in_app: false, data: { orig_in_app: true } });
    // webpack's name for node_modules.
    const tilde = symbolicateOne(
      { abs_path: BUNDLE_URL, lineno: 1, colno: 1, in_app: true },
      map({ sources: ['webpack:///~/lib/a.js'] }),
    );
    expect(tilde).toMatchObject({ in_app: false, data: { orig_in_app: true } });
    const own = symbolicateOne(
      { abs_path: BUNDLE_URL, lineno: 1, colno: 1, in_app: true },
      map({ sources: ['webpack:///./src/~/a.js'] }),
    );
    expect(own).toMatchObject({ in_app: true });
  });

  it('applies sourceRoot, and resolves against an absolute path for Node bundles', () => {
    const rooted = symbolicateOne({ abs_path: BUNDLE_URL, lineno: 1 }, map({ sourceRoot: '/src', sources: ['a.ts'] }));
    expect(rooted).toMatchObject({ filename: 'a.ts', abs_path: 'https://shop.example/src/a.ts' });
    const node = symbolicateOne({ abs_path: '/srv/app/dist/index.js', lineno: 1 }, map({ sources: ['../src/index.ts'] }), 'node');
    expect(node).toMatchObject({ filename: '../src/index.ts', abs_path: '/srv/app/src/index.ts' });
    const bare = symbolicateOne({ abs_path: 'bundle.js', lineno: 1 }, map({ sources: ['./src/index.ts'] }));
    expect(bare).toMatchObject({ filename: 'src/index.ts', abs_path: './src/index.ts' });
  });

  it('falls back to the next mapping when nothing precedes the column, and counts a missing column as the first', () => {
    const later = map({ sources: ['a.js'], mappings: 'EAAA' });
    expect(symbolicateOne({ abs_path: BUNDLE_URL, lineno: 1, colno: 1 }, later)).toMatchObject({ filename: 'a.js', colno: 1 });
    expect(symbolicateOne({ abs_path: BUNDLE_URL, lineno: 1 }, later)).toMatchObject({ filename: 'a.js', lineno: 1 });
  });

  it('leaves a frame in code the map marks as unmapped as it is, rather than giving it the next mapping', () => {
    // Columns 0-1 are a segment with no source (a bundler's runtime, a polyfill without a map);
    // column 2 maps to a.js. A frame at column 1 was given a.js, line 1: another module's code.
    const unmapped = map({ sources: ['a.js'], mappings: 'A,EAAA' });
    const frame = { abs_path: BUNDLE_URL, lineno: 1, colno: 2, filename: 'bundle.min.js' };
    expect(symbolicateOne(frame, unmapped)).toMatchObject({ filename: 'bundle.min.js', lineno: 1, colno: 2 });
    expect(symbolicateOne({ ...frame, colno: 3 }, unmapped)).toMatchObject({ filename: 'a.js', lineno: 1, colno: 1 });
  });

  it('strips "async " from abs_path for the lookup', () => {
    const frame = symbolicateOne({ abs_path: `async ${BUNDLE_URL}`, lineno: 1 }, map({ sources: ['a.js'] }));
    expect(frame).toMatchObject({ filename: 'a.js', abs_path: 'https://shop.example/static/a.js' });
  });

  it('trims long context lines around the column', () => {
    const long = `${'a'.repeat(200)}THROW${'b'.repeat(200)}`;
    // `;AACwM`: generated line 2, column 1 is source line 2, column 201 (where THROW starts).
    const frame = symbolicateOne(
      { abs_path: BUNDLE_URL, lineno: 2, colno: 1 },
      map({ sources: ['a.js'], sourcesContent: [`short\n${long}`], mappings: ';AACwM' }),
    );
    expect(frame).toMatchObject({ lineno: 2, colno: 201 });
    expect(frame.context_line).toMatch(/^\{snip\} a+THROWb+ \{snip\}$/);
    expect(frame.context_line!.length).toBe(140 + '{snip} '.length * 2);
    expect(frame.pre_context).toEqual(['short']);
  });
});

describe('trimLine', () => {
  const line = 'x'.repeat(300);
  it('keeps lines up to 150 characters and cuts longer ones to 140', () => {
    expect(trimLine('short', 100)).toBe('short');
    expect(trimLine(line, 0)).toBe(`${'x'.repeat(140)} {snip}`);
    expect(trimLine(line, 300)).toBe(`{snip} ${'x'.repeat(140)}`);
    expect(trimLine(line, 150)).toBe(`{snip} ${'x'.repeat(140)} {snip}`);
  });
  it('never splits a surrogate pair', () => {
    const emoji = '😀'.repeat(100);
    expect(trimLine(emoji, 61)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});
