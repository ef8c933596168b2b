// An artifact bundle laid out to defeat a reader that caches a few chunks (issue 14): its files
// in `regions` groups, each group at the start of a chunk of its own padded with zeros (8 KB of
// gzip for 8 MiB), and the manifest and central directory listing them cycling through the
// groups (file 1 in chunk A, file 2 in chunk B, file 3 in chunk C, file 4 in chunk A, ...), so a
// reader following either order jumps to another chunk for every file. The manifest and central
// directory take the chunk after the groups.
import { randomUUID } from 'node:crypto';
import { minified } from './bundle-fixtures.ts';
import { sysb, writeZip, type ZipItem } from './zip-writer.ts';

interface CyclingBundleOptions {
  chunkSize: number;
  regions: number;
  filesPerRegion: number;
  /** Give each file a debug id, so it is indexed (true), or none, so it is read and skipped. */
  debugIds?: boolean;
}

/** The bundle's bytes (SYSB header and ZIP) and its files' debug ids. */
export function cyclingBundle(options: CyclingBundleOptions): { bundle: Buffer; ids: string[] } {
  const { chunkSize, regions, filesPerRegion } = options;
  const ids: string[] = [];
  const items: ZipItem[] = [];
  const groups: number[][] = [];
  let offset = sysb().length;
  for (let region = 0; region < regions; region++) {
    const group: number[] = [];
    for (let file = 0; file < filesPerRegion; file++) {
      const id = options.debugIds === false ? undefined : randomUUID();
      if (id) ids.push(id);
      const item = { name: `files/_/_/r${region}-${file}.js`, data: minified(id), method: 0 };
      group.push(items.push(item) - 1);
      offset += 30 + item.name.length + item.data.length;
    }
    groups.push(group);
    // Stored zeros up to the next chunk: the local header (30 bytes and the name), then the data.
    const name = `pad${region}`;
    const padding = (region + 1) * chunkSize - offset - 30 - name.length;
    if (padding < 0) throw new RangeError(`${filesPerRegion} files do not fit in a chunk of ${chunkSize} bytes`);
    items.push({ name, data: new Uint8Array(padding), method: 0 });
    offset = (region + 1) * chunkSize;
  }
  const cycling = Array.from({ length: filesPerRegion * regions }, (_, i) => groups[i % regions]![Math.floor(i / regions)]!);
  const manifest = {
    files: Object.fromEntries(cycling.map((i) => [items[i]!.name, { type: 'minified_source', url: `~/${items[i]!.name}` }])),
  };
  const zip = writeZip([...items, { name: 'manifest.json', data: JSON.stringify(manifest) }], {
    prefix: sysb(),
    directoryOrder: [...cycling, ...items.flatMap((item, i) => (item.name.startsWith('pad') ? [i] : [])), items.length],
  });
  return { bundle: Buffer.from(zip), ids };
}
