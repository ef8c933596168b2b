import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAssets } from './asset-builder.ts';

let dir: string;
let sources: { script: string; style: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'errata-assets-'));
  sources = { script: join(dir, 'client.ts'), style: join(dir, 'style.css') };
  await writeFile(sources.script, 'document.body.dataset.ready = "yes";\n');
  await writeFile(sources.style, 'body { color: red; }\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const names = async () => (await buildAssets(sources)).map((asset) => asset.name);

describe('the asset builder', () => {
  it('names one script and one stylesheet by a hash of their bytes', async () => {
    const [script, style] = await buildAssets(sources);
    expect(script.name).toMatch(/^app\.[0-9a-f]{12}\.js$/);
    expect(style.name).toMatch(/^app\.[0-9a-f]{12}\.css$/);
    expect(new TextDecoder().decode(style.body)).toContain('color:red');
  });

  it('gives the same bytes the same names, and changed bytes a new name', async () => {
    const [script, style] = await names();
    expect(await names()).toEqual([script, style]);

    await writeFile(sources.style, 'body { color: blue; }\n');
    const [sameScript, newStyle] = await names();
    expect(sameScript).toBe(script);
    expect(newStyle).not.toBe(style);

    await writeFile(sources.script, 'document.body.dataset.ready = "no";\n');
    const [newScript] = await names();
    expect(newScript).not.toBe(script);
  });

  it("bundles the dashboard's own script with htmx, and its stylesheet", async () => {
    const [script, style] = await buildAssets();
    expect(new TextDecoder().decode(script.body)).toContain('htmx-config');
    // htmx's indicator rules, which the page tells htmx not to inject.
    expect(new TextDecoder().decode(style.body)).toContain('.htmx-indicator');
  });
});
