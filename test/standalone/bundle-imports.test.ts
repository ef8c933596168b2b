// The standalone server's bundle (what `npm start` runs, built by `npm run build`) imports the
// distributed mode's drivers only on demand: they held 8 MB of its heap and about 13 MB of its
// idle RSS, and the S3 client about 4 MB of heap in each of its two threads (docs/benchmarks.md).
// It imports the MCP SDK on demand too: /mcp and the agent manifest load it on their first
// request. Read from the built files, following their static imports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/standalone-server.ts';

const DIST = join(REPO_ROOT, 'dist');
const DRIVERS = ['pg', '@platformatic/kafka', '@clickhouse/client', '@aws-sdk/client-s3'];
const MCP_SDK = '@modelcontextprotocol/sdk';
const ON_DEMAND = [...DRIVERS, MCP_SDK];

/** The packages of `packages` that `loaded` holds, itself or any of its subpaths. */
function among(packages: readonly string[], loaded: Set<string>): string[] {
  return packages.filter((name) => [...loaded].some((specifier) => specifier === name || specifier.startsWith(`${name}/`)));
}

/** `import … from "x"` and `import "x"` statements, which may span lines; not `import("x")`. */
const STATIC_IMPORT = /^import\s*(?:[^;("]*?\sfrom\s*)?"([^"]+)";/gm;
const DYNAMIC_IMPORT = /\bimport\("([^"]+)"\)/g;

/** The packages a built file and the chunks it imports statically load when it loads. */
function packagesLoadedWith(file: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(file)) return packages;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, specifier] of text.matchAll(STATIC_IMPORT)) {
    if (specifier!.startsWith('.')) {
      for (const p of packagesLoadedWith(join(file, '..', specifier!), seen)) packages.add(p);
    } else if (!specifier!.startsWith('node:')) packages.add(specifier!);
  }
  return packages;
}

/** The chunks that a built file, or any chunk it imports statically, imports on demand. */
function chunksImportedOnDemand(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const staticChunks = [...text.matchAll(STATIC_IMPORT)].flatMap(([, specifier]) =>
    specifier!.startsWith('.') ? [join(file, '..', specifier!)] : [],
  );
  return [
    ...[...text.matchAll(DYNAMIC_IMPORT)].map(([, specifier]) => join(file, '..', specifier!)),
    ...staticChunks.flatMap((chunk) => chunksImportedOnDemand(chunk, seen)),
  ];
}

describe('the standalone bundle', () => {
  const entries = ['errata.mjs', 'backend-worker.mjs'].map((name) => join(DIST, name));

  it('loads none of the distributed drivers, nor the MCP SDK, at start', () => {
    const loaded = new Set(entries.flatMap((entry) => [...packagesLoadedWith(entry)]));
    // What it does load at start is found (so the reading above works): the HTTP server and PGlite.
    expect(loaded).toContain('koa');
    expect(loaded).toContain('@electric-sql/pglite');
    expect(among(ON_DEMAND, loaded)).toEqual([]);
  });

  it('reaches every distributed driver, and the MCP SDK, through an import on demand', () => {
    const onDemand = new Set(chunksImportedOnDemand(entries[0]!).flatMap((chunk) => [...packagesLoadedWith(chunk)]));
    expect(among(ON_DEMAND, onDemand)).toEqual(ON_DEMAND);
  });
});
