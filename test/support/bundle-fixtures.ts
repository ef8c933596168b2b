// What the artifact bundle tests (manifest rules in core, ZIP reading in ingest) build bundles from.
export const ID = '2f0a3d7e-95b1-4c3e-8a6f-0d1e2c3b4a59';
export const OTHER_ID = 'c0ffee00-1234-4abc-9def-001122334455';

const encoder = new TextEncoder();
export const bytes = (text: string) => encoder.encode(text);
export const text = (data: Uint8Array) => new TextDecoder().decode(data);

/** A minified file, with a trailing debugId comment when given an id. */
export const minified = (id?: string) =>
  `!function(){console.log("hi")}();\n//# sourceMappingURL=app.js.map\n${id ? `//# debugId=${id}\n` : ''}`;

export const sourceMap = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ version: 3, sources: ['../src/app.ts'], names: [], mappings: 'AAAA', ...fields });
