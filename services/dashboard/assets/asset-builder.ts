// Bundles the dashboard's browser assets with esbuild: client.ts and all it imports (htmx) into
// one script, style.css into one stylesheet, each named by a hash of its bytes so that a
// browser may keep it forever (a change makes a new name). `npm run build` writes them into
// dist/assets (write-assets.ts); tests running from source build them in memory (asset-store.ts).
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export interface BuiltAsset {
  /** The file name, e.g. app.3f2a9c0d1b7e.js: what the asset path ends with. */
  name: string;
  body: Uint8Array;
}

interface AssetSources {
  /** The browser entry point (TypeScript or JavaScript). */
  script: string;
  /** The stylesheet's entry point. */
  style: string;
}

const OWN_SOURCES: AssetSources = {
  script: fileURLToPath(new URL('./client.ts', import.meta.url)),
  style: fileURLToPath(new URL('./style.css', import.meta.url)),
};

/** The script first, then the stylesheet. */
export async function buildAssets(sources: AssetSources = OWN_SOURCES): Promise<[BuiltAsset, BuiltAsset]> {
  // Imported here, not at the top: esbuild is a dev dependency, and the server bundle reaches
  // this module only when it runs from source.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [
      { in: sources.script, out: 'app' },
      { in: sources.style, out: 'app' },
    ],
    bundle: true,
    minify: true,
    format: 'iife',
    // light-dark() in the stylesheet: browsers from 2024 on (lowering it would ignore the theme setting).
    target: ['chrome123', 'firefox120', 'safari17.5'],
    legalComments: 'none',
    write: false,
    outdir: 'out',
    logLevel: 'silent',
  });
  const output = (extension: string): BuiltAsset => {
    const file = result.outputFiles.find((candidate) => candidate.path.endsWith(`app.${extension}`));
    if (!file) throw new Error(`esbuild produced no app.${extension}`);
    return { name: `app.${contentHash(file.contents)}.${extension}`, body: file.contents };
  };
  return [output('js'), output('css')];
}

function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 12);
}
