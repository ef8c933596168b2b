// The standalone server's bundle (what `npm start` runs, built by `npm run build`) imports the
// distributed mode's drivers only on demand: they held 8 MB of its heap and about 13 MB of its
// idle RSS, and the S3 client about 3 MB of heap in each of its two threads (docs/benchmarks.md).
// It imports the MCP SDK on demand too: /mcp and the agent manifest load it on their first
// request. Its main thread loads neither PGlite (the backend thread holds the database) nor
// openid-client (the first sign-in loads it). Read from the built files, following their static
// imports, and the imports on demand of those files.
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

/**
 * The packages that a built file, or any chunk it imports statically, imports on demand: a
 * package named in `import("x")` itself, and what a chunk imported that way loads with it.
 */
function packagesLoadedOnDemand(file: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(file)) return packages;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, specifier] of text.matchAll(DYNAMIC_IMPORT)) {
    if (specifier!.startsWith('.')) {
      for (const p of packagesLoadedWith(join(file, '..', specifier!))) packages.add(p);
    } else if (!specifier!.startsWith('node:')) packages.add(specifier!);
  }
  for (const [, specifier] of text.matchAll(STATIC_IMPORT)) {
    if (specifier!.startsWith('.')) for (const p of packagesLoadedOnDemand(join(file, '..', specifier!), seen)) packages.add(p);
  }
  return packages;
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

  it('loads neither PGlite nor openid-client on the main thread at start, and reaches both on demand', () => {
    // The backend thread holds the database; a provider's client loads with the first sign-in.
    const mainThread = ['@electric-sql/pglite', 'openid-client'];
    expect(among(mainThread, packagesLoadedWith(entries[0]!))).toEqual([]);
    expect(among(mainThread, packagesLoadedWith(entries[1]!))).toEqual(['@electric-sql/pglite']);
    expect(among(mainThread, packagesLoadedOnDemand(entries[0]!))).toEqual(mainThread);
  });

  it('reaches every distributed driver, and the MCP SDK, through an import on demand', () => {
    expect(among(ON_DEMAND, packagesLoadedOnDemand(entries[0]!))).toEqual(ON_DEMAND);
  });
});
