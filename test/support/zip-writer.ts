// Artifact bundles as sentry-cli writes them, built by a small ZIP writer (APPNOTE.TXT) that can
// also forge what real writers never would: the tests of reading bundles and of assembling them
// from uploaded chunks build theirs here.
import { crc32, deflateRawSync } from 'node:zlib';
import { bytes, ID, minified, sourceMap } from './bundle-fixtures.ts';

export interface ZipItem {
  name: string;
  data?: string | Uint8Array;
  /** 0 stored, 8 deflate (the default), or anything to forge. */
  method?: number;
  /** The entry's data as stored, instead of `data` compressed (bombs, broken deflate). */
  raw?: Uint8Array;
  flags?: number;
  crc?: number;
  /** The declared uncompressed size, instead of `data`'s length. */
  size?: number;
  /** The local header offset the central directory declares, instead of the real one. */
  localOffset?: number;
  /** Streamed: sizes and CRC zero in the local header, in a data descriptor after the data. */
  descriptor?: boolean;
}

export interface ZipOptions {
  /** Bytes before the ZIP; by default counted in its offsets, as sentry-cli writes them. */
  prefix?: Uint8Array;
  countPrefix?: boolean;
  /** Sizes and offsets in ZIP64 extra fields and end records. */
  zip64?: boolean;
  disk?: number;
  /** The entry count the end record declares. */
  count?: number;
  /** The central directory's order, as indexes into the items (by default the order they lie in). */
  directoryOrder?: number[];
}

function fields(...values: [2 | 4 | 8, number][]): Uint8Array {
  const out = new Uint8Array(values.reduce((sum, [width]) => sum + width, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const [width, value] of values) {
    if (width === 2) view.setUint16(at, value, true);
    else if (width === 4) view.setUint32(at, value, true);
    else view.setBigUint64(at, BigInt(value), true);
    at += width;
  }
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((at, part) => (out.set(part, at), at + part.length), 0);
  return out;
}

export function writeZip(items: ZipItem[], options: ZipOptions = {}): Uint8Array {
  const prefix = options.prefix ?? new Uint8Array(0);
  const base = options.countPrefix === false ? 0 : prefix.length;
  const zip64 = options.zip64 ?? false;
  const MAX = 0xffffffff;
  const parts: Uint8Array[] = [prefix];
  const central: Uint8Array[] = [];
  let offset = base;
  const push = (part: Uint8Array) => (parts.push(part), (offset += part.length));

  for (const item of items) {
    const content = typeof item.data === 'string' ? bytes(item.data) : (item.data ?? new Uint8Array(0));
    const method = item.method ?? 8;
    const stored = item.raw ?? (method === 8 ? deflateRawSync(content) : content);
    const crc = item.crc ?? crc32(content);
    const size = item.size ?? content.length;
    const flags = (item.flags ?? 0) | 0x0800 | (item.descriptor ? 0x0008 : 0);
    const name = bytes(item.name);
    const version = zip64 ? 45 : 20;
    const localOffset = offset;
    const [localCrc, localSize, localCompressed] = item.descriptor ? [0, 0, 0] : [crc, size, stored.length];
    const localExtra = zip64 ? fields([2, 1], [2, 16], [8, localSize], [8, localCompressed]) : new Uint8Array(0);
    push(
      fields(
        [4, 0x04034b50],
        [2, version],
        [2, flags],
        [2, method],
        [2, 0],
        [2, 0x21],
        [4, localCrc],
        [4, zip64 ? MAX : localCompressed],
        [4, zip64 ? MAX : localSize],
        [2, name.length],
        [2, localExtra.length],
      ),
    );
    push(concat([name, localExtra, stored]));
    if (item.descriptor) {
      const sizes: [2 | 4 | 8, number][] = zip64
        ? [
            [8, stored.length],
            [8, size],
          ]
        : [
            [4, stored.length],
            [4, size],
          ];
      push(fields([4, 0x08074b50], [4, crc], ...sizes));
    }
    const declaredOffset = item.localOffset ?? localOffset;
    const extra = zip64 ? fields([2, 1], [2, 24], [8, size], [8, stored.length], [8, declaredOffset]) : new Uint8Array(0);
    central.push(
      fields(
        [4, 0x02014b50],
        [2, version],
        [2, version],
        [2, flags],
        [2, method],
        [2, 0],
        [2, 0x21],
        [4, crc],
        [4, zip64 ? MAX : stored.length],
        [4, zip64 ? MAX : size],
        [2, name.length],
        [2, extra.length],
        [2, 0],
        [2, 0],
        [2, 0],
        [4, 0],
        [4, zip64 ? MAX : declaredOffset],
      ),
      concat([name, extra]),
    );
  }

  const directoryOffset = offset;
  for (const index of options.directoryOrder ?? items.map((_, index) => index)) {
    // Two parts per item: its fixed fields, then its name and extra field.
    push(central[2 * index]!);
    push(central[2 * index + 1]!);
  }
  const directorySize = offset - directoryOffset;
  const count = options.count ?? items.length;
  const disk = options.disk ?? 0;
  if (zip64) {
    const recordOffset = offset;
    push(
      fields(
        [4, 0x06064b50],
        [8, 44],
        [2, 45],
        [2, 45],
        [4, disk],
        [4, disk],
        [8, count],
        [8, count],
        [8, directorySize],
        [8, directoryOffset],
      ),
    );
    push(fields([4, 0x07064b50], [4, 0], [8, recordOffset], [4, 1]));
  }
  push(
    fields(
      [4, 0x06054b50],
      [2, disk],
      [2, disk],
      [2, zip64 ? 0xffff : count],
      [2, zip64 ? 0xffff : count],
      [4, zip64 ? MAX : directorySize],
      [4, zip64 ? MAX : directoryOffset],
      [2, 0],
    ),
  );
  return concat(parts);
}

/** The 8-byte header sentry-cli puts before the ZIP. */
export const sysb = (version = 2) => concat([bytes('SYSB'), fields([4, version])]);

export interface Listed {
  type: string;
  url: string;
  headers?: Record<string, string>;
  content: string;
}

/** A bundle as sentry-cli writes it: the header, then a ZIP of manifest.json and the files, offsets counting the header. */
export function makeBundle(
  files: Record<string, Listed>,
  options: ZipOptions & { manifest?: Record<string, unknown>; method?: number; extra?: ZipItem[] } = {},
): Uint8Array {
  const manifest = {
    files: Object.fromEntries(Object.entries(files).map(([path, { content: _content, ...info }]) => [path, info])),
    ...options.manifest,
  };
  const items: ZipItem[] = [
    { name: 'manifest.json', data: JSON.stringify(manifest), method: options.method },
    ...Object.entries(files).map(([name, { content }]) => ({ name, data: content, method: options.method })),
    ...(options.extra ?? []),
  ];
  return writeZip(items, { prefix: sysb(), ...options });
}

/** The usual pair: a minified file with a `//# debugId=` comment and its map with `debug_id`. */
export function pair(id = ID): Record<string, Listed> {
  return {
    'files/_/_/app.js': { type: 'minified_source', url: '~/app.js', headers: { sourcemap: 'app.js.map' }, content: minified(id) },
    'files/_/_/app.js.map': { type: 'source_map', url: '~/app.js.map', content: sourceMap({ debug_id: id }) },
  };
}
