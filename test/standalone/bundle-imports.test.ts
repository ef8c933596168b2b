// The standalone server's bundle (what `npm start` runs, built by `npm run build`) imports the
// distributed mode's drivers only on demand: they held 8 MB of its heap and about 13 MB of its
// idle RSS, and the S3 client about 3 MB of heap in each of its two threads (docs/benchmarks.md).
// It imports the MCP SDK on demand too: /mcp and the agent manifest load it on their first
// request. Its main thread loads neither PGlite nor the source map parser (the backend thread
// holds the database and symbolicates), nor openid-client (the first sign-in loads it), nor the
// upload's multipart and ZIP parsers (the first upload does). Read from the built files,
// following their static imports, and the imports on demand of those files.
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
/** The comment esbuild heads each bundled module with: its path. */
const MODULE_HEADING = /^\/\/ (services\/\S+\.ts)$/gm;

/** A built file and every chunk it imports statically: what loads when it loads. */
function filesLoadedWith(file: string, files = new Set<string>()): Set<string> {
  if (files.has(file)) return files;
  files.add(file);
  for (const specifier of importsIn(file, STATIC_IMPORT)) {
    if (specifier.startsWith('.')) filesLoadedWith(join(file, '..', specifier), files);
  }
  return files;
}

/** The specifiers of one kind of import in a built file. */
function importsIn(file: string, kind: RegExp): string[] {
  return [...readFileSync(file, 'utf8').matchAll(kind)].map((match) => match[1]!);
}

/** The packages a built file loads when it loads: those its files import statically. */
function packagesLoadedWith(file: string): Set<string> {
  const packages = new Set<string>();
  for (const loaded of filesLoadedWith(file)) {
    for (const specifier of importsIn(loaded, STATIC_IMPORT)) {
      if (!specifier.startsWith('.') && !specifier.startsWith('node:')) packages.add(specifier);
    }
  }
  return packages;
}

/**
 * The packages a built file reaches on demand: those its files name in `import("x")`, and what
 * each chunk they import that way loads with it. One step of loading on demand only: a package
 * reached through two is missing here, so a test expecting it fails rather than passes wrongly.
 */
function packagesLoadedOnDemand(file: string): Set<string> {
  const packages = new Set<string>();
  for (const loaded of filesLoadedWith(file)) {
    for (const specifier of importsIn(loaded, DYNAMIC_IMPORT)) {
      if (specifier.startsWith('.')) for (const p of packagesLoadedWith(join(loaded, '..', specifier))) packages.add(p);
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
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

  it('loads neither PGlite, openid-client nor the upload parsers on the main thread at start, and reaches each on demand', () => {
    // The backend thread holds the database and symbolicates; a provider's client loads with the
    // first sign-in, busboy with the first chunk upload, yauzl with the first bundle assembled.
    const mainThread = ['@electric-sql/pglite', 'openid-client', 'busboy', 'yauzl', '@jridgewell/trace-mapping'];
    expect(among(mainThread, packagesLoadedWith(entries[0]!))).toEqual([]);
    expect(among(mainThread, packagesLoadedWith(entries[1]!))).toEqual(['@electric-sql/pglite', '@jridgewell/trace-mapping']);
    expect(among(mainThread, packagesLoadedOnDemand(entries[0]!))).toEqual(mainThread);
  });

  it('loads the event pipeline on the backend thread only, and for `serve dispatcher` on demand', () => {
    // esbuild heads each module's code with its path; the main thread only reads the role's settings.
    const modulesLoadedWith = (file: string) => [...filesLoadedWith(file)].flatMap((loaded) => importsIn(loaded, MODULE_HEADING));
    const pipeline = ['services/dispatcher/workers.ts', 'services/core/grouping/compute-grouping.ts'];
    expect(pipeline.filter((module) => modulesLoadedWith(entries[0]!).includes(module))).toEqual([]);
    expect(pipeline.filter((module) => modulesLoadedWith(entries[1]!).includes(module))).toEqual(pipeline);
    expect(modulesLoadedWith(entries[0]!)).toContain('services/dispatcher/dispatcher-settings.ts');
    const onDemand = [...filesLoadedWith(entries[0]!)].flatMap((loaded) =>
      importsIn(loaded, DYNAMIC_IMPORT)
        .filter((specifier) => specifier.startsWith('.'))
        .flatMap((specifier) => modulesLoadedWith(join(loaded, '..', specifier))),
    );
    expect(pipeline.filter((module) => onDemand.includes(module))).toEqual(pipeline);
  });

  it('reaches every distributed driver, and the MCP SDK, through an import on demand', () => {
    expect(among(ON_DEMAND, packagesLoadedOnDemand(entries[0]!))).toEqual(ON_DEMAND);
  });
});
