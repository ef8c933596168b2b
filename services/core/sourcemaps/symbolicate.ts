// Symbolication of JavaScript frames by Debug ID (PROTOCOLS.md §5; symbolicator-js symbolication.rs):
// a frame whose `abs_path` is the `code_file` of a `sourcemap` debug image is looked up in that
// image's source map and rewritten to the original file, line, column, function and source
// context. The frames as they arrived are kept in `raw_stacktrace`.
//
// This module is pure: the caller asks `debugIdsNeeded` (maps-needed.ts) which maps the event wants, loads them
// however it likes, parses them with `parseSourceMap` and hands them to `symbolicateEvent`.
//
// Function names are the known gap. Symbolicator names a frame after the enclosing scope, from a
// scope index it builds out of the minified source; we only have the map. So a frame takes the
// name its caller used at the call site (the mapped name of the calling frame's token, Sentry's
// "caller naming"), else keeps its minified name: callbacks called by native code (Array.map,
// event listeners) and property calls (`cart.total()`, whose names are never mangled) keep theirs.
import { posix } from 'node:path';
import {
  FlattenMap,
  GREATEST_LOWER_BOUND,
  LEAST_UPPER_BOUND,
  originalPositionFor,
  traceSegment,
  type SectionedSourceMapInput,
  type TraceMap,
} from '@jridgewell/trace-mapping';
import type { Frame, NormalizedEvent, Stacktrace } from '../event/event.ts';
import { generateModule } from '../event/js-module.ts';
import { normalizeDebugId } from './artifact-manifest.ts';
import { lookupPath, sourceMapImages } from './maps-needed.ts';

/** The map cannot be used; the message says why. */
export class SourceMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceMapError';
  }
}

export interface ParsedSourceMap {
  readonly map: TraceMap;
  /** Where the map lives, when the caller knows: the base for relative sources, and the frames' `data.sourcemap`. */
  readonly url?: string;
  /** Source index by the resolved name `originalPositionFor` reports, to reach `sources` and `sourcesContent`. */
  readonly sourceIndex: ReadonlyMap<string, number>;
  /** `sourcesContent` split into lines, filled in on first use. */
  readonly lines: (string[] | undefined)[];
}

// ---------------------------------------------------------------------------------------------
// Parsing

const UTF8 = new TextDecoder('utf-8');
/** Base64 VLQ digits and the segment and line separators: anything else is not a mappings string. */
const MAPPINGS = /^[A-Za-z0-9+/,;]*$/;

/** Parses a version 3 source map, flat or indexed (`sections`); throws SourceMapError when it is not one. */
export function parseSourceMap(json: string | Uint8Array, url?: string): ParsedSourceMap {
  let text = typeof json === 'string' ? json.replace(/^\uFEFF/, '') : UTF8.decode(json);
  // The spec lets a map start with an XSSI guard line (`)]}'`) that is to be skipped.
  if (text.startsWith(")]}'")) text = text.slice(text.indexOf('\n') + 1);

  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SourceMapError(`source map is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new SourceMapError('source map is not a JSON object');
  const fields = raw as Record<string, unknown>;
  if (fields.version !== 3) {
    throw new SourceMapError(`unsupported source map version ${JSON.stringify(fields.version)} (only version 3 is supported)`);
  }
  checkMapShape(fields, 0, 0);

  let map: TraceMap;
  try {
    // No map URL here: sources stay as the map names them; abs_path resolution is done per frame.
    map = FlattenMap(fields as unknown as SectionedSourceMapInput);
  } catch (error) {
    throw new SourceMapError(`invalid source map: ${(error as Error).message}`);
  }

  const sourceIndex = new Map<string, number>();
  map.resolvedSources.forEach((source, index) => {
    if (!sourceIndex.has(source)) sourceIndex.set(source, index);
  });
  return { map, url, sourceIndex, lines: [] };
}

/**
 * The line an indexed map's section may start at, at most, counted from the top of the generated
 * file. trace-mapping makes an array for every line before a section: a 150-byte map with a
 * section at line 10^9 took the dispatcher's heap whole, and its batch, tried again, took the
 * next one too. A generated file of a million lines is tens of megabytes.
 */
const MAX_SECTION_LINE = 1_000_000;
/** Sections within sections, at most (the spec allows none; trace-mapping reads any depth). */
const MAX_SECTION_DEPTH = 4;

/** Checks what trace-mapping takes on trust: the mappings of every map, and the sections' offsets. */
function checkMapShape(fields: Record<string, unknown>, depth: number, baseLine: number): void {
  // Sectioned as trace-mapping tells it (the key alone), which then loops to sections.length.
  if ('sections' in fields && !Array.isArray(fields.sections)) throw new SourceMapError('source map "sections" is not a list');
  if (!Array.isArray(fields.sections)) {
    if (!Array.isArray(fields.sources)) throw new SourceMapError('source map has no "sources" array');
    if (typeof fields.mappings !== 'string') throw new SourceMapError('source map has no "mappings" string');
    // trace-mapping decodes whatever it is given without complaint, so garbage is caught here.
    if (!MAPPINGS.test(fields.mappings)) throw new SourceMapError('source map "mappings" is not base64 VLQ');
    // An array for every generated line, as for a section's offset: a map of semicolons alone
    // took about 24 bytes of heap for each byte of JSON.
    if (baseLine + lineCount(fields.mappings) > MAX_SECTION_LINE) {
      throw new SourceMapError(`source map "mappings" runs past line ${MAX_SECTION_LINE} of the generated file`);
    }
    // What symbolication reads as text: a number among the sources threw in the middle of an
    // event's frames, and the event was dropped rather than kept with its minified frames.
    checkTexts(fields, 'sources', true);
    checkTexts(fields, 'sourcesContent', true);
    checkTexts(fields, 'names', false);
    if (fields.sourceRoot !== undefined && fields.sourceRoot !== null && typeof fields.sourceRoot !== 'string') {
      throw new SourceMapError('source map "sourceRoot" is not a string');
    }
    // trace-mapping copies a section's ignore list entry by entry, up to its "length".
    for (const key of ['ignoreList', 'x_google_ignoreList']) {
      const list = fields[key];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list) || !list.every((index) => Number.isSafeInteger(index) && index >= 0)) {
        throw new SourceMapError(`source map "${key}" must be a list of source indexes`);
      }
    }
    return;
  }
  if (depth >= MAX_SECTION_DEPTH) throw new SourceMapError(`source map sections nest deeper than ${MAX_SECTION_DEPTH}`);
  let previous = { line: -1, column: -1 };
  for (const section of fields.sections as unknown[]) {
    const { offset, map } = (typeof section === 'object' && section !== null ? section : {}) as Record<string, unknown>;
    const { line, column } = (typeof offset === 'object' && offset !== null ? offset : {}) as Record<string, unknown>;
    if (!Number.isSafeInteger(line) || !Number.isSafeInteger(column) || (line as number) < 0 || (column as number) < 0) {
      throw new SourceMapError('source map section has no "offset" of whole, non-negative "line" and "column"');
    }
    if (baseLine + (line as number) > MAX_SECTION_LINE) {
      throw new SourceMapError(`source map section starts past line ${MAX_SECTION_LINE} of the generated file`);
    }
    if ((line as number) < previous.line || (line === previous.line && (column as number) < previous.column)) {
      throw new SourceMapError('source map sections are not in order of their offsets');
    }
    previous = { line: line as number, column: column as number };
    if (typeof map !== 'object' || map === null || Array.isArray(map)) {
      throw new SourceMapError('source map section has no "map" object (sections by "url" are not supported)');
    }
    checkMapShape(map as Record<string, unknown>, depth + 1, baseLine + (line as number));
  }
}

/** Lines of generated code a mappings string covers: one more than its semicolons. */
function lineCount(mappings: string): number {
  let lines = 1;
  for (let at = mappings.indexOf(';'); at !== -1; at = mappings.indexOf(';', at + 1)) lines++;
  return lines;
}

/** That a map's list, when it has one, holds only strings (and nulls, where the spec allows them). */
function checkTexts(fields: Record<string, unknown>, key: 'sources' | 'sourcesContent' | 'names', nullable: boolean): void {
  const list = fields[key];
  if (list === undefined || (list === null && key !== 'sources')) return;
  const fine = Array.isArray(list) && list.every((item) => typeof item === 'string' || (nullable && item === null));
  if (!fine) throw new SourceMapError(`source map "${key}" must be a list of strings${nullable ? ' (or null)' : ''}`);
}

// ---------------------------------------------------------------------------------------------
// Symbolication

/**
 * Rewrites the frames of every exception (and the event-level stacktrace) that have a map; keeps
 * the original frames as raw_stacktrace; returns which debug ids were used. Frames without a map,
 * without lineno >= 1, or whose position maps to nothing are left as they are.
 *
 * The event-level stacktrace has no raw_stacktrace slot (as in Sentry), so only its rewritten
 * frames remain; `data.symbolicated` on each frame keeps a second run from applying twice.
 */
export function symbolicateEvent(
  event: NormalizedEvent,
  maps: Map<string, ParsedSourceMap>,
): { usedDebugIds: Set<string>; framesSymbolicated: number } {
  const byDebugId = new Map<string, ParsedSourceMap>();
  for (const [id, map] of maps) byDebugId.set(normalizeDebugId(id) ?? id, map);
  const byCodeFile = sourceMapImages(event);
  const usedDebugIds = new Set<string>();
  const pendingContext: PendingContext[] = [];
  let framesSymbolicated = 0;

  const symbolicateFrames = ({ frames, frames_omitted: omitted }: Stacktrace): number => {
    let count = 0;
    // Caller naming (see the top of the file): frames run oldest first, so the previous frame is the caller.
    let callsiteName: string | undefined;
    for (const [index, frame] of frames.entries()) {
      // The frame after the frames a long trace left out was called by one of those, not by the frame before it.
      if (index === omitted?.[0]) callsiteName = undefined;
      const path = lookupPath(frame);
      const debugId = path === undefined ? undefined : byCodeFile.get(path);
      const map = debugId === undefined ? undefined : byDebugId.get(debugId);
      const tokenName =
        path !== undefined && debugId !== undefined && map
          ? symbolicateFrame(frame, path, map, debugId, callsiteName, pendingContext)
          : null;
      callsiteName = tokenName ?? undefined;
      if (tokenName !== null && debugId !== undefined) {
        count++;
        usedDebugIds.add(debugId);
      }
    }
    return count;
  };

  for (const exception of event.exception?.values ?? []) {
    if (!exception.stacktrace || exception.raw_stacktrace) continue;
    const original = structuredClone(exception.stacktrace);
    const count = symbolicateFrames(exception.stacktrace);
    if (count > 0) exception.raw_stacktrace = original;
    framesSymbolicated += count;
  }
  if (event.stacktrace) framesSymbolicated += symbolicateFrames(event.stacktrace);
  addContext(pendingContext);

  return { usedDebugIds, framesSymbolicated };
}

/**
 * A source from a package: under node_modules, or webpack's `~/` (its name for node_modules,
 * `webpack:///~/lodash/index.js`), which Sentry's processing also takes as not in-app.
 */
function isDependency(source: string): boolean {
  return /(^|[/\\])node_modules[/\\]/.test(source) || /^webpack:\/\/[^/]*\/~\//.test(source);
}

const CONTEXT_LINES = 5;

/**
 * Characters of source context symbolication adds to one event. Without a bound, thousands of
 * small frames pointing into one map (25 exceptions of 250 frames, 40 bytes each) took eleven
 * lines of up to 154 characters each: a 260 KB event stored as over 10 MB.
 */
export const CONTEXT_CHARACTERS = 256 * 1024;

/** A symbolicated frame waiting for its source context: where in which source it points. */
interface PendingContext {
  frame: Frame;
  parsed: ParsedSourceMap;
  index: number;
  /** 1-based, in the original source. */
  line: number;
}

/**
 * The source context of each frame while CONTEXT_CHARACTERS last, innermost frames first (the
 * last stack trace's newest frame, then back): those are the ones a person reads. A frame past
 * the bound keeps its original file, line and function, without context.
 */
function addContext(pending: PendingContext[]): void {
  let budget = CONTEXT_CHARACTERS;
  for (let i = pending.length - 1; i >= 0; i--) {
    const { frame, parsed, index, line } = pending[i]!;
    const lines = sourceLines(parsed, index);
    const contextLine = lines?.[line - 1];
    if (!lines || contextLine === undefined) continue;
    const trim = (text: string) => trimLine(text, frame.colno!);
    const pre = lines.slice(Math.max(0, line - 1 - CONTEXT_LINES), line - 1).map(trim);
    const current = trim(contextLine);
    const post = lines.slice(line, line + CONTEXT_LINES).map(trim);
    budget -= current.length + [...pre, ...post].reduce((sum, text) => sum + text.length, 0);
    if (budget < 0) return;
    frame.pre_context = pre;
    frame.context_line = current;
    frame.post_context = post;
  }
}

/**
 * Rewrites one frame in place. Returns null when it was left as it is, else the mapped token's
 * name ('' when the token has none), which names the function of the next frame.
 */
function symbolicateFrame(
  frame: Frame,
  minifiedPath: string,
  parsed: ParsedSourceMap,
  debugId: string,
  callsiteName: string | undefined,
  pendingContext: PendingContext[],
): string | null {
  const { lineno, colno } = frame;
  if (typeof lineno !== 'number' || !Number.isInteger(lineno) || lineno < 1) return null;
  // Event columns are 1-based, trace-mapping's are 0-based; a missing column counts as the first.
  const column = typeof colno === 'number' && Number.isInteger(colno) && colno >= 1 ? colno - 1 : 0;

  const { map } = parsed;
  let position = originalPositionFor(map, { line: lineno, column, bias: GREATEST_LOWER_BOUND });
  // The next mapping only when nothing on the line precedes the column: a segment without a source
  // there marks code the map does not cover, which is left minified, not given another module's lines.
  if (position.source === null && traceSegment(map, lineno - 1, column) === null) {
    position = originalPositionFor(map, { line: lineno, column, bias: LEAST_UPPER_BOUND });
  }
  // The source by the segment's own index where the lookup found one: by its name, two sections of
  // an indexed map that each name `../src/index.ts` gave the second's frames the first's lines.
  // A segment pointing past `sources` resolves to undefined, not null; treat it like no mapping.
  const segmentSource = traceSegment(map, lineno - 1, column)?.[1];
  const index =
    segmentSource !== undefined && position.source !== null
      ? segmentSource
      : typeof position.source === 'string'
        ? parsed.sourceIndex.get(position.source)
        : undefined;
  const source = index === undefined ? undefined : map.sources[index];
  if (index === undefined || !source || position.line === null || position.line < 1 || position.column === null) return null;

  frame.lineno = position.line;
  frame.colno = position.column + 1;
  frame.filename = cleanFilename(source);
  // Sources are relative to the map; the bundle's own URL stands in when the map's is unknown
  // (maps are usually deployed next to their bundle).
  const base = [parsed.url, minifiedPath].find((candidate) => candidate !== undefined && isBase(candidate));
  frame.abs_path = resolveAbsPath(withSourceRoot(source, map.sourceRoot), base);
  if (callsiteName) frame.function = callsiteName;

  // Any module the frame had (the SDK's, or one derived from the bundle's URL) names the
  // minified file, not the original one: it goes, and is derived again from the original path.
  delete frame.module;
  if (source.startsWith('webpack:')) frame.module = generateModule(frame.filename);
  else if (frame.module === undefined && URL_PREFIXES.test(frame.abs_path)) frame.module = generateModule(frame.abs_path);

  // Context from the bundle (a Node SDK sends it) would describe the minified code: drop it.
  delete frame.pre_context;
  delete frame.context_line;
  delete frame.post_context;
  pendingContext.push({ frame, parsed, index, line: position.line });

  const data: Record<string, unknown> = { ...frame.data };
  if (isDependency(source) && frame.in_app !== false) {
    // Recorded as the in-app rules do, unless they already recorded the SDK's own value.
    if (!('orig_in_app' in data)) data.orig_in_app = frame.in_app ?? -1;
    frame.in_app = false;
  }
  frame.data = { ...data, sourcemap: parsed.url ?? debugId, symbolicated: true, resolved_with: 'debug-id' };

  return position.name ?? '';
}

const URL_PREFIXES = /^(https?|webpack|app):/i;
/** A URL scheme: two characters at least, so a Windows drive letter (`C:`) is not one. */
const SCHEME = /^[a-z][a-z0-9+.-]+:/i;

/** The source as a person reads it: `webpack://<namespace>/` and leading `./` removed. */
function cleanFilename(source: string): string {
  return source.replace(/^webpack:\/\/[^/]*\//, '').replace(/^(\.\/)+/, '');
}

/** `sourceRoot` is a directory prefix for relative sources (trace-mapping and browsers agree). */
function withSourceRoot(source: string, sourceRoot: string | undefined): string {
  if (!sourceRoot || SCHEME.test(source)) return source;
  return sourceRoot.endsWith('/') ? sourceRoot + source : `${sourceRoot}/${source}`;
}

/** A URL or an absolute path, against which a relative source can be resolved (`~/app.js.map` is neither). */
function isBase(path: string): boolean {
  return SCHEME.test(path) || path.startsWith('/');
}

/**
 * Where the original file lives: a source with a scheme (`webpack://`, `https://`) as it is;
 * otherwise resolved against the base (a URL, or an absolute path for Node). Without a base the
 * source stays as the map names it.
 */
function resolveAbsPath(path: string, base: string | undefined): string {
  if (SCHEME.test(path) || base === undefined) return path;
  if (SCHEME.test(base)) {
    try {
      return new URL(path, base).href;
    } catch {
      return path;
    }
  }
  return path.startsWith('/') ? posix.normalize(path) : posix.join(posix.dirname(base), path);
}

function sourceLines(parsed: ParsedSourceMap, index: number): string[] | undefined {
  const cached = parsed.lines[index];
  if (cached) return cached;
  const content = parsed.map.sourcesContent?.[index];
  if (typeof content !== 'string') return undefined;
  // Compilers count \r\n, \n and a lone \r as line ends; a final line end starts no new line.
  const lines = content.split(/\r\n?|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  parsed.lines[index] = lines;
  return lines;
}

const MAX_LINE = 150;
const TRIMMED_LINE = 140;
const BEFORE_COLUMN = 60;

/**
 * A line longer than 150 characters cut to about 140 around the column, `{snip}` marking each cut
 * edge (symbolicator's trim_context_line, so minified-looking sources stay readable).
 */
export function trimLine(line: string, column: number): string {
  const length = line.length;
  if (length <= MAX_LINE) return line;
  let start = Math.max(0, Math.min(column, length) - BEFORE_COLUMN);
  if (start < 5) start = 0;
  let end = Math.min(start + TRIMMED_LINE, length);
  if (end > length - 5) end = length;
  if (end === length) start = Math.max(0, end - TRIMMED_LINE);
  // Never split a surrogate pair.
  if (start > 0 && isLowSurrogate(line.charCodeAt(start))) start--;
  if (end < length && isLowSurrogate(line.charCodeAt(end))) end--;
  return `${start > 0 ? '{snip} ' : ''}${line.slice(start, end)}${end < length ? ' {snip}' : ''}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
