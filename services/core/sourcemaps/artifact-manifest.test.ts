import { describe, expect, it } from 'vitest';
import {
  BundleError,
  collectBundleFiles,
  findDebugId,
  normalizeDebugId,
  parseManifest,
  type ArtifactManifest,
  type BundleEntries,
} from './artifact-manifest.ts';
import { UserInputError } from '../errors.ts';
import { bytes, ID, minified, OTHER_ID, sourceMap, text } from '../../../test/support/bundle-fixtures.ts';

interface Listed {
  type: string;
  url: string;
  headers?: Record<string, string>;
  content: string;
}

/** The usual pair: a minified file with a `//# debugId=` comment and its map with `debug_id`. */
function pair(id = ID): Record<string, Listed> {
  return {
    'files/_/_/app.js': { type: 'minified_source', url: '~/app.js', headers: { sourcemap: 'app.js.map' }, content: minified(id) },
    'files/_/_/app.js.map': { type: 'source_map', url: '~/app.js.map', content: sourceMap({ debug_id: id }) },
  };
}

/** Runs the manifest through JSON and parseManifest, as a bundle's would, with its files in memory. */
async function collect(files: Record<string, Listed>, extra: Record<string, unknown> = {}) {
  const manifest = {
    files: Object.fromEntries(Object.entries(files).map(([path, { content: _content, ...info }]) => [path, info])),
    ...extra,
  };
  const reads: string[] = [];
  const entries: BundleEntries = {
    has: (path) => Object.hasOwn(files, path),
    readEach: async function* (paths) {
      // In reverse, as a reader may choose its own order: the result keeps the manifest's.
      for (const path of [...paths].reverse()) {
        reads.push(path);
        yield [path, bytes(files[path]!.content)];
      }
    },
  };
  const result = await collectBundleFiles(parseManifest(bytes(JSON.stringify(manifest))), entries);
  return { result, reads };
}

function expectBundleError(run: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(BundleError);
  expect((caught as BundleError).message).toMatch(message);
}

describe('normalizeDebugId', () => {
  it('keeps lower-case hyphenated UUIDs', () => {
    expect(normalizeDebugId(ID)).toBe(ID);
  });

  it('lower-cases, trims and adds hyphens', () => {
    expect(normalizeDebugId(ID.toUpperCase())).toBe(ID);
    expect(normalizeDebugId(ID.replaceAll('-', ''))).toBe(ID);
    expect(normalizeDebugId(` ${ID.replaceAll('-', '').toUpperCase()}\n`)).toBe(ID);
  });

  it.each([
    '',
    'not-a-debug-id',
    ID.slice(1),
    `${ID}0`,
    `{${ID}}`,
    `${ID}-1a`,
    ID.replace('-', '').replace('a', '-a'),
    ID.replace('2', 'g'),
    '00000000-0000-0000-0000-000000000000',
    '00000000000000000000000000000000',
  ])('rejects %j', (value) => {
    expect(normalizeDebugId(value)).toBeUndefined();
  });
});

describe('parseManifest', () => {
  it('reads the manifest sentry-cli 3 writes', () => {
    const manifest = parseManifest(
      bytes(
        JSON.stringify({
          files: {
            'files/_/_/app.js': {
              type: 'minified_source',
              url: '~/app.js',
              headers: { 'debug-id': ID, sourcemap: 'app.js.map' },
            },
          },
          debug_id: OTHER_ID,
          dist: 'web',
          org: 'x',
          project: 'p',
          release: '1.0.0',
        }),
      ),
    );
    expect(manifest).toMatchObject({ release: '1.0.0', dist: 'web', project: 'p', debug_id: OTHER_ID });
    expect(manifest.files['files/_/_/app.js']).toEqual({
      type: 'minified_source',
      url: '~/app.js',
      headers: { 'debug-id': ID, sourcemap: 'app.js.map' },
    });
  });

  it('raises BundleError, a UserInputError, so the client gets the message', () => {
    expect(() => parseManifest(bytes('nope'))).toThrow(UserInputError);
  });

  it.each([
    ['not JSON', '{"files": ', /manifest\.json is not valid JSON/],
    ['an array', '[]', /manifest\.json has an invalid shape/],
    ['without files', '{"org": "x"}', /invalid shape \(manifest\.files: /],
    ['files of the wrong type', '{"files": []}', /invalid shape \(manifest\.files: /],
    ['an entry without url', '{"files": {"files/a.js": {"type": "source_map"}}}', /manifest\.files\.files\/a\.js\.url: /],
    ['a numeric type', '{"files": {"files/a.js": {"type": 1, "url": "~/a.js"}}}', /manifest\.files\.files\/a\.js\.type: /],
    [
      'a numeric header',
      '{"files": {"files/a.js": {"type": "source_map", "url": "~/a.js", "headers": {"debug-id": 5}}}}',
      /headers\.debug-id: /,
    ],
    ['a numeric release', '{"files": {}, "release": 5}', /manifest\.release: /],
  ])('rejects a manifest that is %s', (_name, manifest, message) => {
    expectBundleError(() => parseManifest(bytes(manifest)), message);
  });
});

describe('findDebugId', () => {
  it('prefers the manifest debug-id header over the comment and the map key', () => {
    expect(findDebugId('minified_source', { 'debug-id': OTHER_ID }, bytes(minified(ID)))).toBe(OTHER_ID);
    expect(findDebugId('source_map', { 'debug-id': OTHER_ID }, bytes(sourceMap({ debug_id: ID })))).toBe(OTHER_ID);
  });

  it('reads header names case-insensitively', () => {
    expect(findDebugId('minified_source', { 'Debug-ID': OTHER_ID.toUpperCase() }, bytes(minified()))).toBe(OTHER_ID);
  });

  it('falls back to the file when the header id is invalid', () => {
    expect(findDebugId('minified_source', { 'debug-id': 'nope' }, bytes(minified(ID)))).toBe(ID);
    expect(findDebugId('source_map', { 'debug-id': '' }, bytes(sourceMap({ debug_id: ID })))).toBe(ID);
  });

  it('reads the debugId key of a map (sentry-cli 3), preferring a valid debug_id when both are present', () => {
    const mapId = (fields: Record<string, unknown>) => findDebugId('source_map', {}, bytes(sourceMap(fields)));
    expect(mapId({ debugId: OTHER_ID })).toBe(OTHER_ID);
    expect(mapId({ debugId: OTHER_ID, debug_id: ID })).toBe(ID);
    expect(mapId({ debugId: OTHER_ID, debug_id: 'bad' })).toBe(OTHER_ID);
    expect(mapId({ debug_id: 42 })).toBeUndefined();
  });

  it('normalizes upper-case and unhyphenated ids from comments and maps', () => {
    expect(findDebugId('minified_source', {}, bytes(minified(ID.toUpperCase().replaceAll('-', ''))))).toBe(ID);
    expect(findDebugId('source_map', {}, bytes(sourceMap({ debug_id: ID.toUpperCase() })))).toBe(ID);
  });

  it.each([
    ['not JSON', '{"debug_id": '],
    ['a JSON array', `["${ID}"]`],
    ['JSON null', 'null'],
  ])('finds nothing in a source map that is %s', (_name, content) => {
    expect(findDebugId('source_map', {}, bytes(content))).toBeUndefined();
  });

  it('does not read a comment in a source map, nor a map key in a minified file', () => {
    expect(findDebugId('source_map', {}, bytes(minified(ID)))).toBeUndefined();
    expect(findDebugId('minified_source', {}, bytes(sourceMap({ debug_id: ID })))).toBeUndefined();
  });

  it.each([
    ['the last comment wins', `//# debugId=${OTHER_ID}\ncode();\n//# debugId=${ID}\n`, ID],
    ['trailing whitespace and junk', `code();\n//# debugId=  ${ID}\t junk`, ID],
    ['no trailing newline', `code();\n//# debugId=${ID}`, ID],
    ['CRLF line ends', `code();\r\n//# debugId=${ID}\r\n`, ID],
    ['at the very start', `//# debugId=${ID}\ncode();\n`, ID],
    ['the deprecated //@ form is not a debug id', `code();\n//@ debugId=${ID}\n`, undefined],
    ['a bare debugId= is not a comment', `code();\ndebugId=${ID}\n`, undefined],
    ['an invalid last comment is not replaced by an earlier one', `//# debugId=${ID}\n//# debugId=nope\n`, undefined],
    ['an overlong value is not cut to an id', `code();\n//# debugId=${ID}${'0'.repeat(100)}\n`, undefined],
  ])('finds the //# debugId= comment: %s', (_name, content, expected) => {
    expect(findDebugId('minified_source', {}, bytes(content))).toBe(expected);
  });
});

describe('collectBundleFiles', () => {
  it('indexes a minified file (debugId comment) and its map (debug_id) under one id', async () => {
    const { result } = await collect(pair(), { org: 'x', project: 'web', release: '1.0.0', dist: 'ios' });
    expect(result.skipped).toBe(0);
    expect(result).toMatchObject({ release: '1.0.0', dist: 'ios', project: 'web' });
    expect(result.files.map(({ content, ...rest }) => ({ ...rest, content: text(content) }))).toEqual([
      { debugId: ID, type: 'minified_source', url: '~/app.js', sourceMap: 'app.js.map', content: minified(ID) },
      { debugId: ID, type: 'source_map', url: '~/app.js.map', content: sourceMap({ debug_id: ID }) },
    ]);
  });

  it('leaves release, dist, project and bundle id out when the manifest has none, and normalizes the bundle id', async () => {
    const { result } = await collect(pair(), { release: '', dist: null, debug_id: 'not-an-id' });
    expect(Object.keys(result).sort()).toEqual(['files', 'skipped']);
    const { result: withId } = await collect(pair(), { debug_id: OTHER_ID.toUpperCase() });
    expect(withId.bundleId).toBe(OTHER_ID);
  });

  it('takes the source map reference from the sourcemap or X-SourceMap header, for minified sources only', async () => {
    const files = pair();
    files['files/_/_/app.js']!.headers = { 'X-SourceMap': 'maps/app.js.map' };
    files['files/_/_/app.js.map']!.headers = { sourcemap: 'ignored' };
    const { result } = await collect(files);
    expect(result.files[0]).toMatchObject({ debugId: ID, sourceMap: 'maps/app.js.map' });
    expect(result.files[1]).not.toHaveProperty('sourceMap');
  });

  it('gives a map without a debug id of its own the id of the minified file whose header names it', async () => {
    // A tool rewrote the map after `sentry-cli sourcemaps inject`, dropping its debug_id: the
    // upload said ok, and its frames were never symbolicated.
    const { result } = await collect({
      'files/_/_/static/js/app.js': {
        type: 'minified_source',
        url: '~/static/js/app.js',
        headers: { sourcemap: '../maps/app.js.map' },
        content: minified(ID),
      },
      'files/_/_/static/maps/app.js.map': { type: 'source_map', url: '~/static/maps/app.js.map', content: sourceMap() },
      'files/_/_/other.js.map': { type: 'source_map', url: '~/other.js.map', content: sourceMap() },
    });
    expect(result.files.map((file) => [file.type, file.url, file.debugId])).toEqual([
      ['minified_source', '~/static/js/app.js', ID],
      ['source_map', '~/static/maps/app.js.map', ID],
    ]);
    expect(result.skipped).toBe(1);
  });

  it('skips and counts files of other types or without a valid debug id, reading only the types it indexes', async () => {
    const { result, reads } = await collect({
      ...pair(),
      'files/_/_/no-id.js': { type: 'minified_source', url: '~/no-id.js', content: minified() },
      'files/_/_/no-id.js.map': { type: 'source_map', url: '~/no-id.js.map', content: sourceMap() },
      'files/_/_/broken.js.map': { type: 'source_map', url: '~/broken.js.map', content: '{"debug_id": ' },
      'files/_/_/src.ts': { type: 'source', url: '~/src.ts', headers: { 'debug-id': ID }, content: 'const a = 1;' },
      'files/_/_/ram.bundle': { type: 'indexed_ram_bundle', url: '~/ram.bundle', headers: { 'debug-id': ID }, content: 'x' },
      'files/_/_/future': { type: 'something_new', url: '~/future', headers: { 'debug-id': ID }, content: 'x' },
    });
    expect(result.files.map((file) => file.url)).toEqual(['~/app.js', '~/app.js.map']);
    expect(result.skipped).toBe(6);
    expect(reads).not.toContain('files/_/_/src.ts');
    expect(reads).toHaveLength(5);
  });

  it('indexes a file whose path in the bundle is __proto__ like any other', async () => {
    // zod builds a record by assignment, which took this path as the record's prototype: the
    // file was neither checked for nor read, nor counted as skipped.
    const { result, reads } = await collect({
      ['__proto__']: { type: 'source_map', url: '~/app.js.map', content: sourceMap({ debug_id: ID }) },
      ['constructor']: { type: 'source', url: '~/src.ts', content: 'x' },
    });
    expect(result.files.map((file) => file.url)).toEqual(['~/app.js.map']);
    expect(result.skipped).toBe(1);
    expect(reads).toEqual(['__proto__']);
  });

  it('rejects a manifest that lists a missing entry before reading anything', async () => {
    const manifest: ArtifactManifest = {
      files: {
        'files/a.js': { type: 'minified_source', url: '~/a.js' },
        'files/../../etc/passwd': { type: 'source_map', url: '~/x' },
      },
    };
    let reads = 0;
    const entries: BundleEntries = {
      has: (path) => path === 'files/a.js',
      readEach: async function* (paths) {
        for (const path of paths) yield (reads++, [path, bytes(minified(ID))]);
      },
    };
    await expect(collectBundleFiles(manifest, entries)).rejects.toThrow(
      /manifest\.json lists "files\/\.\.\/\.\.\/etc\/passwd" but the bundle has no such entry/,
    );
    expect(reads).toBe(0);
  });
});
