// `npm run build`'s second step: bundles the dashboard's assets into dist/assets, where the
// server bundle (dist/errata.mjs) reads them at start. Old hashed files go first, so the
// directory holds exactly one script and one stylesheet.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAssets } from './asset-builder.ts';

const target = fileURLToPath(new URL('../../../dist/assets/', import.meta.url));
await rm(target, { recursive: true, force: true });
await mkdir(target, { recursive: true });
for (const asset of await buildAssets()) await writeFile(join(target, asset.name), asset.body);
