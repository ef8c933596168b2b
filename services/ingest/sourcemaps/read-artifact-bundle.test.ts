import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { constants, deflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { BundleError } from '../../core/sourcemaps/artifact-manifest.ts';
import { DEFAULT_BUNDLE_LIMITS, readArtifactBundle } from './read-artifact-bundle.ts';
import { bytes, ID, minified, OTHER_ID, sourceMap, text } from '../../../test/support/bundle-fixtures.ts';
import {
  concat,
  makeBundle,
  pair,
  sysb,
  writeZip,
  type Listed,
  type ZipItem,
  type ZipOptions,
} from '../../../test/support/zip-writer.ts';

// Every entry the reader inflates goes through openReadStream, so counting its calls proves
// which hostile bundles were refused before a single byte was inflated.
let streamsOpened: MockInstance;
beforeEach(() => {
  streamsOpened = vi.spyOn(yauzl.ZipFile.prototype, 'openReadStream');
});
afterEach(() => {
  vi.restoreAllMocks();
});

// The ZIP writer and the bundles it makes are in test/support/zip-writer.ts.

const PAIR_MANIFEST = JSON.stringify({
  files: Object.fromEntries(Object.entries(pair()).map(([path, { content: _content, ...info }]) => [path, info])),
});

/** The pair's bundle with one entry replaced by `item` (same name as an entry to forge it, or a new one). */
function forgedBundle(item: ZipItem, options: ZipOptions = {}): Uint8Array {
  const items: ZipItem[] = [
    { name: 'manifest.json', data: PAIR_MANIFEST },
    ...Object.entries(pair()).map(([name, { content }]) => ({ name, data: content })),
  ];
  const index = items.findIndex((existing) => existing.name === item.name);
  if (index >= 0) items[index] = { ...items[index], ...item };
  else items.push(item);
  return writeZip(items, { prefix: sysb(), ...options });
}

async function expectBundleError(run: Promise<unknown>, message: RegExp): Promise<BundleError> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BundleError);
  expect((error as BundleError).message).toMatch(message);
  return error as BundleError;
}

/** What reading gives, or 'hang': a bad archive must fail, never leave the caller waiting. */
async function outcome(data: Uint8Array): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise((resolve) => (timer = setTimeout(() => resolve('hang'), 2000)));
  try {
    return await Promise.race([
      readArtifactBundle(data).then(
        () => 'ok',
        (error: unknown) => error,
      ),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Deterministic incompressible text (a PRNG, so runs are reproducible). */
function noise(length: number, seed = 1): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let state = seed;
  let out = '';
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += alphabet[(state >>> 16) & 63];
  }
  return out;
}

// Raw deflate data for `mebibytes` MiB of zeros, about 1 KB per MiB: one sync-flushed MiB
// repeated (each copy only refers back into itself, and zeros look the same everywhere), then
// an empty final block. 2 GiB takes 2 MB and a few milliseconds to make, over a second to inflate.
function deflatedZeros(mebibytes: number): Uint8Array {
  const block = deflateRawSync(new Uint8Array(1024 * 1024), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  return concat([...Array.from({ length: mebibytes }, () => block), deflateRawSync(new Uint8Array(0))]);
}
const BOMB_MIB = 2048;
let bombData: Uint8Array | undefined;
/** The pair's bundle plus a listed `bomb.js` whose deflate data inflates to 2 GiB of zeros. */
function zipBomb(declaredSize: number): Uint8Array {
  bombData ??= deflatedZeros(BOMB_MIB);
  const manifest = JSON.parse(PAIR_MANIFEST) as { files: Record<string, unknown> };
  manifest.files['files/_/_/bomb.js'] = { type: 'minified_source', url: '~/bomb.js', headers: { 'debug-id': OTHER_ID } };
  return writeZip(
    [
      { name: 'manifest.json', data: JSON.stringify(manifest) },
      ...Object.entries(pair()).map(([name, { content }]) => ({ name, data: content })),
      { name: 'files/_/_/bomb.js', raw: bombData, size: declaredSize, crc: 0 },
    ],
    { prefix: sysb() },
  );
}

const FIXTURE = new URL('../../../test/fixtures/sourcemaps/sentry-cli-3-bundle.bin', import.meta.url);

// ---------------------------------------------------------------------------------------------

describe('readArtifactBundle', () => {
  it('refuses a manifest.json over 16 MiB before parsing it', async () => {
    // Random text, which does not compress past the ratio check: before, it was parsed whole (a
    // 100 MB one of made-up keys took about a gigabyte of heap).
    const padding = randomBytes(13 * 1024 * 1024).toString('base64');
    const large = forgedBundle({ name: 'manifest.json', data: JSON.stringify({ ...JSON.parse(PAIR_MANIFEST), padding }) });
    await expectBundleError(readArtifactBundle(large), /manifest\.json is \d+ bytes; at most 16777216/);
  });

  it('reads a real sentry-cli 3.8.0 bundle (ZIP offsets counting the SYSB header)', async () => {
    const fixture = readFileSync(FIXTURE);
    // The bytes must be exactly what the CLI uploaded: this SHA-1 is the checksum it sent.
    expect(createHash('sha1').update(fixture).digest('hex')).toBe('b4cc3487b7c347b30987179648e4f028b9e51d3b');
    const result = await readArtifactBundle(fixture);
    const injected = '154733b7-3a40-544e-9fd4-e3454f09847d';
    expect(result).toMatchObject({
      skipped: 0,
      release: '1.0.0',
      dist: 'web',
      project: 'p',
      bundleId: '31ac23c9-1c32-5460-bf57-8e67a8d16fef',
    });
    expect(result.files.map(({ content: _content, ...rest }) => rest)).toEqual([
      { debugId: injected, type: 'minified_source', url: '~/app.js', sourceMap: 'app.js.map' },
      { debugId: injected, type: 'source_map', url: '~/app.js.map' },
    ]);
    const [script, map] = result.files.map((file) => text(file.content));
    expect(script).toHaveLength(540);
    expect(script).toMatch(new RegExp(`\\n//# debugId=${injected}\\n$`));
    expect(JSON.parse(map!)).toMatchObject({ version: 3, debugId: injected });
  });

  it('refuses the real bundle with its header cut off, since its offsets count the header', async () => {
    await expectBundleError(
      readArtifactBundle(readFileSync(FIXTURE).subarray(8)),
      /not a readable ZIP archive: invalid central directory file header signature/,
    );
  });

  it('indexes a minified file and its map, with the manifest fields', async () => {
    const result = await readArtifactBundle(
      makeBundle(pair(), { manifest: { org: 'x', project: 'web', release: '1.0.0', dist: 'ios' } }),
    );
    expect(result).toMatchObject({ skipped: 0, release: '1.0.0', dist: 'ios', project: 'web' });
    expect(result.files.map(({ content, ...rest }) => ({ ...rest, content: text(content) }))).toEqual([
      { debugId: ID, type: 'minified_source', url: '~/app.js', sourceMap: 'app.js.map', content: minified(ID) },
      { debugId: ID, type: 'source_map', url: '~/app.js.map', content: sourceMap({ debug_id: ID }) },
    ]);
  });

  it('reads a bare ZIP, without the SYSB header', async () => {
    expect((await readArtifactBundle(makeBundle(pair(), { prefix: new Uint8Array(0) }))).files).toHaveLength(2);
  });

  it('reads a Uint8Array that is a view into a larger buffer', async () => {
    const bundle = makeBundle(pair());
    const larger = new Uint8Array(bundle.length + 20);
    larger.set(bundle, 10);
    expect((await readArtifactBundle(larger.subarray(10, 10 + bundle.length))).files).toHaveLength(2);
  });

  it('reads stored (uncompressed) entries', async () => {
    const result = await readArtifactBundle(makeBundle(pair(), { method: 0 }));
    expect(text(result.files[0]!.content)).toBe(minified(ID));
  });

  it('reads a streamed ZIP (data descriptors after each entry)', async () => {
    const bundle = writeZip(
      [
        { name: 'manifest.json', data: PAIR_MANIFEST, descriptor: true },
        ...Object.entries(pair()).map(([name, { content }]) => ({ name, data: content, descriptor: true })),
      ],
      { prefix: sysb() },
    );
    expect((await readArtifactBundle(bundle)).files.map((file) => file.debugId)).toEqual([ID, ID]);
  });

  it('reads ZIP64 archives', async () => {
    const result = await readArtifactBundle(makeBundle(pair(), { zip64: true }));
    expect(result.files.map((file) => file.url)).toEqual(['~/app.js', '~/app.js.map']);
  });

  it('inflates entries larger than one stream chunk exactly', async () => {
    const big = sourceMap({ debug_id: ID, sourcesContent: [noise(400_000)] });
    const result = await readArtifactBundle(
      makeBundle({ 'files/big.js.map': { type: 'source_map', url: '~/big.js.map', content: big } }),
    );
    expect(text(result.files[0]!.content)).toBe(big);
  });

  it('ignores entries the manifest does not list, and directories', async () => {
    const result = await readArtifactBundle(
      makeBundle(pair(), {
        extra: [
          { name: 'files/stray.js', data: minified(OTHER_ID) },
          { name: 'files/dir/', method: 0 },
        ],
      }),
    );
    expect(result.files.map((file) => file.url)).toEqual(['~/app.js', '~/app.js.map']);
    expect(result.skipped).toBe(0);
  });

  it('accepts partial limits, ignoring undefined ones, and has the documented defaults', async () => {
    expect((await readArtifactBundle(makeBundle(pair()), { maxFiles: 2, maxFileBytes: undefined })).files).toHaveLength(2);
    expect(DEFAULT_BUNDLE_LIMITS).toEqual({
      maxFiles: 10_000,
      maxFileBytes: 104_857_600,
      maxTotalBytes: 1_073_741_824,
      maxCompressionRatio: 200,
    });
    await expect(readArtifactBundle(makeBundle(pair()), { maxFiles: -1 })).rejects.toThrow(RangeError);
  });
});

describe('readArtifactBundle on hostile input', () => {
  it.each([
    ['empty input', new Uint8Array(0)],
    ['text', bytes('hello, this is not a zip file at all')],
    ['JSON', bytes(JSON.stringify({ files: {} }))],
    ['a PNG header', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])],
    ['a bare SYSB header', sysb()],
    ['noise', bytes(noise(5000))],
  ])('rejects %s as not a ZIP', async (_name, data) => {
    await expectBundleError(readArtifactBundle(data), /not a readable ZIP archive: End of central directory record/);
  });

  it('rejects a truncated SYSB header and unknown bundle versions', async () => {
    await expectBundleError(readArtifactBundle(bytes('SYSB\u0002')), /truncated: it ends inside its SYSB header/);
    for (const version of [0, 3, 0xffffffff]) {
      const bundle = makeBundle(pair(), { prefix: sysb(version) });
      await expectBundleError(readArtifactBundle(bundle), new RegExp(`unsupported format version ${version} \\(expected 2\\)`));
    }
  });

  it('rejects every truncation with a BundleError', async () => {
    const bundle = makeBundle(pair());
    for (let length = 0; length < bundle.length; length++) {
      expect(await outcome(bundle.subarray(0, length)), `length ${length}`).toBeInstanceOf(BundleError);
    }
  });

  it('never fails with anything but a BundleError, nor hangs, whichever byte is corrupted', async () => {
    // Stored entries, so flips inside the data reach the CRC check rather than zlib.
    for (const method of [8, 0]) {
      const bundle = makeBundle(pair(), { manifest: { release: '1' }, method });
      for (let at = 0; at < bundle.length; at++) {
        for (const mask of [0xff, 0x01, 0x80]) {
          const corrupted = bundle.slice();
          corrupted[at]! ^= mask;
          const result = await outcome(corrupted);
          if (result !== 'ok')
            expect(result, `method ${method}, byte ${at} ^ ${mask}: ${String(result)}`).toBeInstanceOf(BundleError);
        }
      }
    }
  });

  it('rejects a bundle without manifest.json', async () => {
    const bundle = writeZip([{ name: 'files/a.js', data: minified(ID) }], { prefix: sysb() });
    await expectBundleError(readArtifactBundle(bundle), /the artifact bundle has no manifest\.json/);
  });

  it('rejects a bad manifest.json with the manifest parser message', async () => {
    const bundle = forgedBundle({ name: 'manifest.json', data: '{"files": [] }' });
    await expectBundleError(readArtifactBundle(bundle), /manifest\.json has an invalid shape \(manifest\.files: /);
  });

  it('rejects a manifest entry that points at a missing ZIP entry or a directory, before reading files', async () => {
    const manifest = (path: string) => JSON.stringify({ files: { [path]: { type: 'minified_source', url: '~/x.js' } } });
    for (const path of ['files/missing.js', 'files/dir/', 'files/../../etc/passwd']) {
      streamsOpened.mockClear();
      const bundle = writeZip(
        [
          { name: 'manifest.json', data: manifest(path) },
          { name: 'files/dir/', method: 0 },
        ],
        { prefix: sysb() },
      );
      await expectBundleError(readArtifactBundle(bundle), /manifest\.json lists ".*" but the bundle has no such entry/);
      expect(streamsOpened).toHaveBeenCalledTimes(1); // manifest.json only
    }
  });

  it.each([
    ['../evil.js', /invalid relative path: \.\.\/evil\.js/],
    ['files/a/../../../evil.js', /invalid relative path/],
    ['/etc/passwd', /absolute path: \/etc\/passwd/],
    ['C:/evil.js', /absolute path: C:\/evil\.js/],
    ['files\\..\\evil.js', /invalid characters in fileName: files\\\.\.\\evil\.js/],
    ['files\\app.js', /invalid characters in fileName/],
  ])('rejects the ZIP entry name %j before inflating anything', async (name, message) => {
    await expectBundleError(readArtifactBundle(forgedBundle({ name, data: 'x' })), message);
    expect(streamsOpened).not.toHaveBeenCalled();
  });

  it('rejects two entries with the same name', async () => {
    const bundle = forgedBundle({ name: 'files/_/_/app.jz', data: 'x' });
    // Rename in place: the new name has the same length, in both the local and central header.
    const duplicated = Buffer.from(bundle);
    let at = duplicated.indexOf('files/_/_/app.jz');
    while (at >= 0) {
      duplicated.write('files/_/_/app.js', at);
      at = duplicated.indexOf('files/_/_/app.jz', at);
    }
    await expectBundleError(readArtifactBundle(duplicated), /two ZIP entries named "files\/_\/_\/app\.js"/);
    expect(streamsOpened).not.toHaveBeenCalled();
  });

  it('rejects too many files by the declared entry count, before reading any entry', async () => {
    const files: Record<string, Listed> = {};
    for (let index = 0; index < 5; index++)
      files[`files/${index}.js`] = { type: 'minified_source', url: `~/${index}.js`, content: minified(idNumbered(index)) };
    await expectBundleError(readArtifactBundle(makeBundle(files), { maxFiles: 3 }), /has 6 entries; at most 3 files are allowed/);
    expect((await readArtifactBundle(makeBundle(files), { maxFiles: 5 })).files).toHaveLength(5);
    // An end record claiming 65535 entries (or ZIP64's 2^40) is refused without reading them.
    const entryReads = vi.spyOn(yauzl.ZipFile.prototype, 'readEntry');
    await expectBundleError(readArtifactBundle(makeBundle(pair(), { count: 0xffff })), /has 65535 entries; at most 10000/);
    await expectBundleError(readArtifactBundle(makeBundle(pair(), { count: 2 ** 40, zip64: true })), /has 1099511627776 entries/);
    expect(entryReads).not.toHaveBeenCalled();
  });

  it('checks declared sizes against the per-file and total limits before inflating', async () => {
    const big = {
      type: 'source_map',
      url: '~/a.js.map',
      content: sourceMap({ debug_id: ID, sourcesContent: ['x'.repeat(600)] }),
    };
    const other = {
      ...big,
      url: '~/b.js.map',
      content: sourceMap({ debug_id: idNumbered(1), sourcesContent: ['x'.repeat(600)] }),
    };
    const bundle = makeBundle({ 'files/a.js.map': big, 'files/b.js.map': other });
    await expectBundleError(
      readArtifactBundle(bundle, { maxFileBytes: 500 }),
      /"files\/a\.js\.map" is \d+ bytes uncompressed; the limit is 500 bytes per file/,
    );
    await expectBundleError(
      readArtifactBundle(bundle, { maxTotalBytes: 1000 }),
      /more than 1000 bytes uncompressed; that is the limit/,
    );
    expect(streamsOpened).not.toHaveBeenCalled();
    expect((await readArtifactBundle(bundle, { maxFileBytes: 1000, maxTotalBytes: 2000 })).files).toHaveLength(2);
  });

  it('rejects a declared size over the limit even when the data is tiny', async () => {
    await expectBundleError(
      readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js', size: 0x7fffffff })),
      /"files\/_\/_\/app\.js" is 2147483647 bytes uncompressed; the limit is 104857600/,
    );
    expect(streamsOpened).not.toHaveBeenCalled();
  });

  it('rejects a real 2 GiB zip bomb by its declared size and ratio, without inflating it', async () => {
    const bomb = zipBomb(BOMB_MIB * 1024 * 1024);
    const started = performance.now();
    await expectBundleError(
      readArtifactBundle(bomb),
      /"files\/_\/_\/bomb\.js" is 2147483648 bytes uncompressed; the limit is 104857600/,
    );
    await expectBundleError(
      readArtifactBundle(bomb, { maxFileBytes: 4 * 1024 ** 3, maxTotalBytes: 4 * 1024 ** 3 }),
      /"files\/_\/_\/bomb\.js" has a 1\d{3}:1 compression ratio, above the limit of 200:1/,
    );
    await expectBundleError(
      readArtifactBundle(bomb, { maxFileBytes: 4 * 1024 ** 3, maxCompressionRatio: 2000 }),
      /more than 1073741824 bytes uncompressed/,
    );
    expect(streamsOpened).not.toHaveBeenCalled();
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('stops a bomb that declares a small size as soon as it inflates past it', async () => {
    // 2 GiB of zeros declared as 1000 bytes passes every declared check; inflating it all
    // would take over a second, so finishing fast shows the stream was cut off early.
    const bomb = zipBomb(1000);
    const started = performance.now();
    await expectBundleError(
      readArtifactBundle(bomb),
      /ZIP entry "files\/_\/_\/bomb\.js" cannot be read: .*(too many bytes|more than)/,
    );
    expect(performance.now() - started).toBeLessThan(500);
    expect(streamsOpened).toHaveBeenCalledTimes(4); // manifest.json, the pair, the bomb
  });

  it('rejects an entry whose data inflates to more or fewer bytes than declared', async () => {
    const actual = minified(ID).length;
    await expectBundleError(
      readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js', size: actual - 1 })),
      /"files\/_\/_\/app\.js" cannot be read: too many bytes in the stream/,
    );
    await expectBundleError(
      readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js', size: actual + 1 })),
      /"files\/_\/_\/app\.js" cannot be read: not enough bytes in the stream/,
    );
  });

  it('rejects data that fails its CRC-32 (which yauzl does not check)', async () => {
    for (const method of [0, 8]) {
      await expectBundleError(
        readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js', method, crc: 12345 })),
        /"files\/_\/_\/app\.js" cannot be read: its data fails the CRC-32 check/,
      );
    }
  });

  it('rejects deflate data that does not inflate', async () => {
    const raw = new Uint8Array(64).fill(0xff);
    await expectBundleError(
      readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js', raw })),
      /"files\/_\/_\/app\.js" cannot be read: invalid block type/,
    );
  });

  it.each([
    ['traditional encryption', { flags: 0x0001 }, /ZIP entry "files\/_\/_\/app\.js\.map" is encrypted/],
    ['AES (method 99)', { method: 99 }, /ZIP entry "files\/_\/_\/app\.js\.map" is encrypted/],
    ['strong encryption', { flags: 0x0041 }, /not a readable ZIP archive: strong encryption is not supported/],
  ])('rejects encrypted entries before inflating: %s', async (_name, changes, message) => {
    await expectBundleError(readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js.map', ...changes })), message);
    expect(streamsOpened).not.toHaveBeenCalled();
  });

  it.each([12, 14, 93, 1])('rejects compression method %i before inflating', async (method) => {
    await expectBundleError(
      readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js', method })),
      new RegExp(`uses compression method ${method}; only stored \\(0\\) and deflate \\(8\\)`),
    );
    expect(streamsOpened).not.toHaveBeenCalled();
  });

  it('rejects local header offsets that point outside the archive or at no local header', async () => {
    await expectBundleError(
      readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js', localOffset: 1_000_000 })),
      /"files\/_\/_\/app\.js" cannot be read: unexpected EOF/,
    );
    await expectBundleError(
      readArtifactBundle(forgedBundle({ name: 'files/_/_/app.js', localOffset: 9 })),
      /"files\/_\/_\/app\.js" cannot be read: invalid local file header signature/,
    );
  });

  it('rejects a listed entry that starts inside another listed one (overlapping entries)', async () => {
    // Two directory entries sharing one local header, as overlapping-file zip bombs have them.
    const files = pair();
    const [js, map] = Object.keys(files) as [string, string];
    const bundle = writeZip(
      [
        { name: js, data: files[js]!.content },
        { name: map, data: files[map]!.content, localOffset: 8 },
        { name: 'manifest.json', data: PAIR_MANIFEST },
      ],
      { prefix: sysb() },
    );
    await expectBundleError(
      readArtifactBundle(bundle),
      /ZIP entry "files\/_\/_\/app\.js\.map" starts at byte 8, inside "files\/_\/_\/app\.js" \(bytes 8 to \d+\); a ZIP's entries must not overlap/,
    );
  });

  it('rejects multi-disk archives', async () => {
    await expectBundleError(readArtifactBundle(makeBundle(pair(), { disk: 1 })), /multi-disk zip files are not supported/);
  });

  it('rejects a header followed by a ZIP whose offsets do not count it', async () => {
    // sentry-cli never writes these; the offsets are followed as recorded, as symbolic does.
    await expectBundleError(
      readArtifactBundle(makeBundle(pair(), { countPrefix: false })),
      /not a readable ZIP archive: invalid central directory file header signature/,
    );
  });
});

/** Debug ids of their own: a bundle's files of one id and type are indexed once. */
function idNumbered(index: number): string {
  return `${ID.slice(0, -2)}${String(index).padStart(2, '0')}`;
}
