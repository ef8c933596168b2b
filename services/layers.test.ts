// The layers of services/ point one way (README.md, Layout): core imports nothing outside itself,
// adapters only core, runtime core and adapters, each role (ingest, mcp, dispatcher) core and
// runtime and no other role (but mcp mounts the dashboard, which imports core and runtime), and only cli (the composition's entry points) imports the roles.
// A role reaching an adapter directly, or runtime reaching up into a role, fails here with the
// file and the import. Tests are exempt: they may set up whatever they test against.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SERVICES = dirname(fileURLToPath(import.meta.url));

const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  adapters: ['core'],
  runtime: ['core', 'adapters'],
  ingest: ['core', 'runtime'],
  mcp: ['core', 'runtime', 'dashboard'],
  dashboard: ['core', 'runtime'],
  dispatcher: ['core', 'runtime'],
  cli: ['core', 'adapters', 'runtime', 'ingest', 'mcp', 'dispatcher', 'dashboard'],
};

/** Relative specifiers of static imports, re-exports and dynamic imports, type-only ones included. */
function relativeImports(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.\.?\/[^'"]+)['"]/g)].map((match) => match[1]!);
}

function sourceFiles(layer: string): string[] {
  return readdirSync(join(SERVICES, layer), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
    .map((file) => join(SERVICES, layer, file));
}

describe('the layers of services/', () => {
  it('knows every layer', () => {
    const layers = readdirSync(SERVICES, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(layers.map((entry) => entry.name).sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  for (const [layer, allowed] of Object.entries(MAY_IMPORT)) {
    it(`${layer} imports only ${allowed.length > 0 ? allowed.join(', ') : 'itself'}`, () => {
      const wrong: string[] = [];
      for (const file of sourceFiles(layer)) {
        for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
          const target = relative(SERVICES, resolve(dirname(file), specifier)).split(sep);
          // Outside services/ (package.json for the version): not a layer.
          if (target[0] === '..') continue;
          if (target[0] !== layer && !allowed.includes(target[0]!)) {
            wrong.push(`${relative(SERVICES, file)} imports ${specifier}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});
