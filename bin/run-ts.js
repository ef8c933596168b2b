#!/usr/bin/env node
// Runs one TypeScript file (benchmarks, test helpers) with the same loader the CLI uses.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const file = process.argv[2];
if (!file) {
  console.error('usage: run-ts.js <file.ts> [args...]');
  process.exit(2);
}
process.argv.splice(1, 1);
register();
await import(pathToFileURL(resolve(file)).href);
