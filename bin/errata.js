#!/usr/bin/env node
// The `errata` binary: the CLI, bundled from services/ by `npm run build` (run by npm install
// and npm start). A bundle starts faster and uses less memory than loading TypeScript.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/errata.mjs', import.meta.url);
if (!existsSync(bundle)) {
  console.error('errata: dist/errata.mjs is missing: run `npm run build` (npm install does it)');
  process.exit(1);
}
await import(bundle.href);
