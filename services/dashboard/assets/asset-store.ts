// The dashboard's script and stylesheet, held in memory with their gzipped copies. Run from the
// bundle (npm start, the image), they are the files `npm run build` wrote into dist/assets,
// beside dist/errata.mjs; run from TypeScript source (tests), they are built now.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { BuiltAsset } from './asset-builder.ts';

/** Where the asset path starts: /assets/app.<hash>.js. */
export const ASSET_PREFIX = '/assets/';

export interface Asset {
  name: string;
  /** ASSET_PREFIX + name: what pages link to. */
  url: string;
  contentType: string;
  body: Buffer;
  gzipped: Buffer;
}

export interface AssetSet {
  script: Asset;
  style: Asset;
  byName: ReadonlyMap<string, Asset>;
}

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export async function loadAssets(): Promise<AssetSet> {
  if (import.meta.url.endsWith('.ts')) {
    const { buildAssets } = await import('./asset-builder.ts');
    return assetSet(await buildAssets());
  }
  const dir = fileURLToPath(new URL('./assets/', import.meta.url));
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new Error(`the dashboard's assets are missing from ${dir}: run \`npm run build\``, { cause: error });
  }
  return assetSet(await Promise.all(names.map(async (name) => ({ name, body: await readFile(join(dir, name)) }))));
}

function assetSet(built: readonly BuiltAsset[]): AssetSet {
  const assets = built.map((file): Asset => {
    const body = Buffer.from(file.body);
    const extension = file.name.slice(file.name.lastIndexOf('.') + 1);
    return {
      name: file.name,
      url: ASSET_PREFIX + file.name,
      contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
      body,
      gzipped: gzipSync(body, { level: 9 }),
    };
  });
  const only = (extension: string): Asset => {
    const found = assets.filter((asset) => asset.name.endsWith(`.${extension}`));
    if (found.length !== 1) throw new Error(`expected one dashboard .${extension} asset, found ${found.length}`);
    return found[0]!;
  };
  return { script: only('js'), style: only('css'), byName: new Map(assets.map((asset) => [asset.name, asset])) };
}
