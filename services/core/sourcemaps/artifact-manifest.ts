// The format half of sentry-cli "artifact bundles", the upload format of `sentry-cli sourcemaps
// upload` (PROTOCOLS.md §4.5–4.6; CLI:src/utils/source_bundle.rs, symbolic's `sourcebundle`):
// the bundle's `manifest.json`, and which of the files it lists we index, under which debug id.
// Getting the bytes out of the ZIP is the ingest side's job (ingest/sourcemaps/read-artifact-bundle.ts);
// this module only sees a manifest and a way to read the entries it lists, so it stays pure.
//
// Every failure is a BundleError, whose message is the `detail` sentry-cli prints to the user.
import { z } from 'zod';
import { UserInputError } from '../errors.ts';
import { setOwn } from '../event/coerce.ts';

/** The artifact types we index; other manifest types (`source`, `indexed_ram_bundle`, …) are skipped. */
export const ARTIFACT_TYPES = ['minified_source', 'source_map'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

export interface BundleFile {
  /** Lower-case hyphenated UUID. */
  debugId: string;
  type: ArtifactType;
  /** The manifest URL, e.g. `~/static/js/main.js`. */
  url: string;
  content: Uint8Array;
  /** For minified sources: the manifest's `sourcemap` (or `x-sourcemap`) header, unresolved, e.g. `main.js.map`. */
  sourceMap?: string;
}

/**
 * What becomes of each file as it is read: by default it is kept whole. An assembly stores each
 * one and keeps only what the index needs, so a bundle's files are never all in memory at once.
 */
export type KeepFile<F> = (file: BundleFile) => Promise<F>;

export interface ParsedArtifactBundle<F = BundleFile> {
  files: F[];
  /** Manifest entries not returned: other types, no (valid) debug id, or a debug id and type already read. */
  skipped: number;
  release?: string;
  dist?: string;
  project?: string;
  /** The bundle's own id (manifest `debug_id`), normalized. */
  bundleId?: string;
}

/** The bundle cannot be used; the message says what is wrong and is safe to return to the client. */
export class BundleError extends UserInputError {}

const UUID_HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_SIMPLE = /^[0-9a-f]{32}$/;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * The lower-case hyphenated form of a UUID debug id given hyphenated or as 32 hex digits, in any
 * case and with surrounding whitespace; undefined for anything else, including the nil UUID
 * (which would match every file).
 */
export function normalizeDebugId(text: string): string | undefined {
  const value = text.trim().toLowerCase();
  let id: string;
  if (UUID_HYPHENATED.test(value)) id = value;
  else if (UUID_SIMPLE.test(value))
    id = `${value.slice(0, 8)}-${value.slice(8, 12)}-${value.slice(12, 16)}-${value.slice(16, 20)}-${value.slice(20)}`;
  else return undefined;
  return id === NIL_UUID ? undefined : id;
}

// ---------------------------------------------------------------------------------------------
// manifest.json

export const MANIFEST_NAME = 'manifest.json';

const manifestFileSchema = z.object({
  type: z.string(),
  url: z.string(),
  path: z.string().nullish(),
  headers: z.record(z.string(), z.string()).nullish(),
});

const optionalText = z.string().nullish();

export const artifactManifestSchema = z.object({
  /** Keyed by the file's path in the ZIP, e.g. `files/_/_/app.js`. */
  files: z.record(z.string(), manifestFileSchema),
  source_links: z.unknown().optional(),
  org: optionalText,
  project: optionalText,
  release: optionalText,
  dist: optionalText,
  note: optionalText,
  debug_id: optionalText,
});

export type ArtifactManifest = z.infer<typeof artifactManifestSchema>;

export function parseManifest(content: Uint8Array): ArtifactManifest {
  let json: unknown;
  try {
    json = JSON.parse(decodeText(content));
  } catch (error) {
    throw new BundleError(`manifest.json is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = artifactManifestSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 3).map((issue) => {
      const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
      return `${path ? `manifest${path}` : 'manifest'}: ${issue.message}`;
    });
    throw new BundleError(`manifest.json has an invalid shape (${problems.join('; ')})`);
  }
  // zod builds a record by assignment, which takes a path `__proto__` as the record's prototype:
  // that file would be neither checked for nor read. Its entry, validated with the others, is
  // set as an own one again.
  const rawFiles = (json as { files: Record<string, unknown> }).files;
  if (Object.hasOwn(rawFiles, '__proto__')) {
    const files: ArtifactManifest['files'] = {};
    for (const path of Object.keys(rawFiles))
      setOwn(files, path, path === '__proto__' ? manifestFileSchema.parse(rawFiles[path]) : parsed.data.files[path]);
    return { ...parsed.data, files };
  }
  return parsed.data;
}

// ---------------------------------------------------------------------------------------------
// From the manifest to the files we index

/** The bundle's ZIP entries, as the reader exposes them (file entries only, no directories). */
export interface BundleEntries {
  has(path: string): boolean;
  /**
   * The contents of these paths (all accepted by `has`, each once), in the order that costs the
   * reader least: a ZIP read in its manifest's order could jump back and forth across storage.
   */
  readEach(paths: string[]): AsyncIterable<[path: string, content: Uint8Array]>;
}

/**
 * The minified sources and source maps the manifest lists, each under its debug id, in the
 * manifest's order. Every listed path must exist before anything is read, and only the types we
 * index are read at all.
 */
export async function collectBundleFiles<F = BundleFile>(
  manifest: ArtifactManifest,
  entries: BundleEntries,
  keep: KeepFile<F> = async (file) => file as F,
): Promise<ParsedArtifactBundle<F>> {
  const listed = Object.entries(manifest.files);
  for (const [path] of listed) {
    if (!entries.has(path)) throw new BundleError(`manifest.json lists ${quote(path)} but the bundle has no such entry`);
  }

  const indexed = new Map<string, { type: ArtifactType; info: (typeof listed)[number][1] }>();
  for (const [path, info] of listed) {
    const type = ARTIFACT_TYPES.find((known) => known === info.type);
    if (type) indexed.set(path, { type, info });
  }
  // One file per debug id and type, the first read (files are read in the order they lie in the
  // bundle): the index keeps one. A bundle holding two (a directory uploaded twice over, `dist`
  // and `dist/assets`) had both written under one key, and then failed to index them at all.
  const seen = new Set<string>();
  const found = new Map<string, F>();
  const referring: Array<{ debugId: string; url: string; sourceMap: string }> = [];
  for await (const [path, content] of entries.readEach([...indexed.keys()])) {
    const { type, info } = indexed.get(path)!;
    const headers = info.headers ?? {};
    const debugId = findDebugId(type, headers, content);
    if (!debugId || seen.has(`${debugId}:${type}`)) continue;
    seen.add(`${debugId}:${type}`);
    const file: BundleFile = { debugId, type, url: info.url, content };
    const sourceMap = headerValue(headers, 'sourcemap') ?? headerValue(headers, 'x-sourcemap');
    if (type === 'minified_source' && sourceMap) {
      file.sourceMap = sourceMap;
      referring.push({ debugId, url: info.url, sourceMap });
    }
    found.set(path, await keep(file));
  }
  // A map with no debug id of its own (a tool rewrote it after `sentry-cli sourcemaps inject`)
  // takes the id of the minified file that names it, as symbolicator finds a map by its file's
  // reference: skipped, the upload said ok and its frames were never symbolicated.
  const mapPathByUrl = new Map(
    [...indexed].filter(([, entry]) => entry.type === 'source_map').map(([path, entry]) => [entry.info.url, path]),
  );
  const adopted = new Map<string, string>();
  for (const file of referring) {
    const path = mapPathByUrl.get(referencedUrl(file.url, file.sourceMap));
    if (path && !found.has(path) && !adopted.has(path) && !seen.has(`${file.debugId}:source_map`))
      adopted.set(path, file.debugId);
  }
  for await (const [path, content] of entries.readEach([...adopted.keys()])) {
    const debugId = adopted.get(path)!;
    if (seen.has(`${debugId}:source_map`)) continue;
    seen.add(`${debugId}:source_map`);
    found.set(path, await keep({ debugId, type: 'source_map', url: indexed.get(path)!.info.url, content }));
  }
  const files = listed.flatMap(([path]) => (found.has(path) ? [found.get(path)!] : []));

  const result: ParsedArtifactBundle<F> = { files, skipped: listed.length - files.length };
  if (manifest.release) result.release = manifest.release;
  if (manifest.dist) result.dist = manifest.dist;
  if (manifest.project) result.project = manifest.project;
  const bundleId = manifest.debug_id ? normalizeDebugId(manifest.debug_id) : undefined;
  if (bundleId) result.bundleId = bundleId;
  return result;
}

/**
 * The URL a minified file's source map reference names, in the manifest's terms (`~/` for the
 * site): a relative path from the file's directory, a path from the site's root, or a whole URL.
 */
function referencedUrl(fileUrl: string, reference: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference)) return reference;
  if (reference.startsWith('/')) return fileUrl.startsWith('~/') ? `~${reference}` : reference;
  const segments = fileUrl.slice(0, fileUrl.lastIndexOf('/') + 1).split('/');
  segments.pop(); // the empty segment after the directory's last slash
  for (const part of reference.split('/')) {
    if (part === '..') {
      if (segments.length > 1) segments.pop();
    } else if (part !== '.') segments.push(part);
  }
  return segments.join('/');
}

/** Manifest headers are HTTP-style, so their names match in any case. */
function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Debug ids: the manifest header, then the `//# debugId=` comment or the map's key.

/** A file's debug id, normalized; undefined when it has none that is valid. */
export function findDebugId(
  type: ArtifactType,
  headers: Readonly<Record<string, string>>,
  content: Uint8Array,
): string | undefined {
  const fromHeader = headerValue(headers, 'debug-id');
  const id = fromHeader === undefined ? undefined : normalizeDebugId(fromHeader);
  if (id) return id;
  return type === 'minified_source' ? debugIdFromComment(content) : debugIdFromSourceMap(content);
}

const COMMENT_PREFIX = asciiBytes('//# ');
const DEBUG_ID_KEY = asciiBytes('debugId=');

/**
 * The value of the last `//# debugId=<id>` comment (symbolic's `discover_debug_id`: the last
 * occurrence wins, the value runs to the next whitespace). Searched in the bytes, so a large
 * file is never decoded.
 */
function debugIdFromComment(content: Uint8Array): string | undefined {
  const first = DEBUG_ID_KEY[0]!;
  for (let at = content.length - DEBUG_ID_KEY.length; at >= COMMENT_PREFIX.length; at--) {
    if (content[at] !== first || !bytesAt(content, at, DEBUG_ID_KEY)) continue;
    if (!bytesAt(content, at - COMMENT_PREFIX.length, COMMENT_PREFIX)) continue;
    let start = at + DEBUG_ID_KEY.length;
    while (start < content.length && (content[start] === 0x20 || content[start] === 0x09)) start++;
    let end = start;
    while (end < content.length && end - start <= 64 && !isAsciiWhitespace(content[end]!)) end++;
    return normalizeDebugId(String.fromCharCode(...content.subarray(start, end)));
  }
  return undefined;
}

/** A source map's `debug_id`, else its `debugId` (bundler plugins write both, sentry-cli 3 writes `debugId`). */
function debugIdFromSourceMap(content: Uint8Array): string | undefined {
  let map: unknown;
  try {
    map = JSON.parse(decodeText(content));
  } catch {
    return undefined;
  }
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return undefined;
  for (const key of ['debug_id', 'debugId']) {
    const value = (map as Record<string, unknown>)[key];
    const id = typeof value === 'string' ? normalizeDebugId(value) : undefined;
    if (id) return id;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Bytes and text

const UTF8 = new TextDecoder('utf-8');

function decodeText(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}

function isAsciiWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0c;
}

function asciiBytes(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

function bytesAt(bytes: Uint8Array, at: number, expected: Uint8Array): boolean {
  if (at < 0 || at + expected.length > bytes.length) return false;
  for (let index = 0; index < expected.length; index++) if (bytes[at + index] !== expected[index]) return false;
  return true;
}

/** A name for a message: JSON-quoted (control characters escaped) and cut to a readable length. */
export function quote(name: string): string {
  return JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
}
