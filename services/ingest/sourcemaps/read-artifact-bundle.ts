// Reads a sentry-cli artifact bundle: an 8-byte header (ASCII `SYSB` + u32 little-endian
// version 2) followed by a ZIP. sentry-cli writes the ZIP's offsets counting that header, so the
// whole buffer, header and all, goes to yauzl, which then finds every offset where it says.
// What the manifest means is core/sourcemaps/artifact-manifest.ts; this module only gets bytes
// out of the ZIP, and bounds the work a hostile upload can cause.
//
// yauzl checks the ZIP's structure: the end records (ZIP64 too; multi-disk rejected), every
// header's signature and bounds, entry names (`..`, absolute, and with strictFileNames
// backslashes), strong encryption, stored entries whose two sizes differ, and, with
// validateEntrySizes, that no entry inflates past its declared size. Here, before anything is
// inflated, the whole central directory is read and each entry's declared size, compression
// ratio, method, encryption and name uniqueness checked against BundleLimits; while inflating,
// no more than the declared size is ever kept; afterwards the CRC-32 is checked (yauzl does not).
// The files are read in the order they lie, whatever order the manifest and central directory
// list them in, and one that starts inside another is refused: so a bundle read from its stored
// chunks (upload/chunked-bundle.ts) passes over them once, not once per file.
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type RandomAccessReader, type ZipFile } from 'yauzl';
import {
  BundleError,
  collectBundleFiles,
  MANIFEST_NAME,
  parseManifest,
  quote,
  type KeepFile,
  type ParsedArtifactBundle,
} from '../../core/sourcemaps/artifact-manifest.ts';

interface BundleLimits {
  /** Most files: ZIP entries other than manifest.json. */
  maxFiles: number;
  /** Most uncompressed bytes of any one entry, manifest.json included. */
  maxFileBytes: number;
  /** Most uncompressed bytes of all entries together. */
  maxTotalBytes: number;
  /** Highest uncompressed:compressed ratio of an entry larger than RATIO_EXEMPT_BYTES. */
  maxCompressionRatio: number;
}

export const DEFAULT_BUNDLE_LIMITS: Readonly<BundleLimits> = Object.freeze({
  maxFiles: 10_000,
  maxFileBytes: 100 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxCompressionRatio: 200,
});

/**
 * Entries up to this many uncompressed bytes are exempt from the ratio check: small files
 * legitimately compress very well, and the per-file and total limits bound them anyway.
 */
const RATIO_EXEMPT_BYTES = 1024 * 1024;

const SYSB_MAGIC = 'SYSB';
const SYSB_VERSION = 2;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;
const METHOD_AES = 99;

export async function readArtifactBundle(bytes: Uint8Array, limits?: Partial<BundleLimits>): Promise<ParsedArtifactBundle> {
  const bounds = resolveLimits(limits);
  checkHeader(bytes);
  // A view, not a copy: yauzl wants a Buffer.
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return readZip(yauzl.fromBufferPromise(buffer, ZIP_OPTIONS), bounds, async (file) => file);
}

/**
 * The same, from a bundle yauzl reads piece by piece where it lies (an assembled upload, whose
 * chunks are never joined): `source.slice` gives the header, yauzl the rest.
 */
export async function readArtifactBundleFrom<F>(
  source: RandomAccessReader & { size: number; slice(start: number, end: number): Promise<Uint8Array> },
  keep: KeepFile<F>,
  limits?: Partial<BundleLimits>,
): Promise<ParsedArtifactBundle<F>> {
  const bounds = resolveLimits(limits);
  checkHeader(await source.slice(0, 8));
  // autoClose off, as fromBuffer has it: the entries are read after the directory has been listed.
  return readZip(yauzl.fromRandomAccessReaderPromise(source, source.size, { ...ZIP_OPTIONS, autoClose: false }), bounds, keep);
}

const ZIP_OPTIONS = { lazyEntries: true, validateEntrySizes: true, strictFileNames: true } as const;

/**
 * The largest manifest.json read: a bundle's most files (10,000) listed with long URLs and
 * headers come to a few megabytes. Held to a file's 100 MB, a manifest of millions of made-up
 * keys took about a gigabyte of ingest's heap to parse before the first was found missing.
 */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

async function readZip<F>(opening: Promise<ZipFile>, bounds: BundleLimits, keep: KeepFile<F>): Promise<ParsedArtifactBundle<F>> {
  const zip = await opening.catch((error: unknown) => {
    if (error instanceof BundleError) throw error;
    throw new BundleError(`the artifact bundle is not a readable ZIP archive: ${describe(error)}`);
  });
  const entries = await readDirectory(zip, bounds);

  const manifestEntry = entries.get(MANIFEST_NAME);
  if (!manifestEntry) throw new BundleError('the artifact bundle has no manifest.json');
  if (manifestEntry.uncompressedSize > MAX_MANIFEST_BYTES) {
    throw new BundleError(
      `manifest.json is ${manifestEntry.uncompressedSize} bytes; at most ${MAX_MANIFEST_BYTES} are read ` +
        '(upload fewer files in each bundle)',
    );
  }
  const manifest = parseManifest(await readEntry(zip, manifestEntry));
  return collectBundleFiles(
    manifest,
    {
      has: (path) => entries.has(path),
      readEach: (paths) =>
        readInPlaceOrder(
          zip,
          paths.map((path) => entries.get(path)!),
        ),
    },
    keep,
  );
}

/**
 * The entries' contents in the order of their local headers, each entry's header and data
 * ending before the next begins (as every ZIP writer leaves them), so reading them never goes
 * back over bytes already passed.
 */
async function* readInPlaceOrder(zip: ZipFile, entries: Entry[]): AsyncGenerator<[string, Uint8Array]> {
  const ordered = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  let previous: { entry: Entry; end: number } | undefined;
  for (const entry of ordered) {
    const start = entry.relativeOffsetOfLocalHeader;
    if (previous && start < previous.end) {
      throw new BundleError(
        `ZIP entry ${quote(entry.fileName)} starts at byte ${start}, inside ${quote(previous.entry.fileName)} ` +
          `(bytes ${previous.entry.relativeOffsetOfLocalHeader} to ${previous.end}); a ZIP's entries must not overlap`,
      );
    }
    const dataStart = await zip.readLocalFileHeaderPromise(entry, { minimal: true }).then(
      (header) => header.fileDataStart,
      (error: unknown) => {
        throw new BundleError(`ZIP entry ${quote(entry.fileName)} cannot be read: ${describe(error)}`);
      },
    );
    previous = { entry, end: dataStart + entry.compressedSize };
    yield [entry.fileName, await readEntry(zip, entry)];
  }
}

function resolveLimits(limits: Partial<BundleLimits> | undefined): BundleLimits {
  const resolved: BundleLimits = { ...DEFAULT_BUNDLE_LIMITS };
  for (const key of Object.keys(DEFAULT_BUNDLE_LIMITS) as (keyof BundleLimits)[]) {
    const value = limits?.[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0)
      throw new RangeError(`invalid bundle limit ${key}: ${value}`);
    resolved[key] = value;
  }
  return resolved;
}

/** The header is optional (a bare ZIP reads the same), but if present its version must be one we know. */
function checkHeader(bytes: Uint8Array): void {
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== SYSB_MAGIC) return;
  if (bytes.length < 8) throw new BundleError('the artifact bundle is truncated: it ends inside its SYSB header');
  const version = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true);
  if (version < 1 || version > SYSB_VERSION) {
    throw new BundleError(`the artifact bundle has unsupported format version ${version} (expected ${SYSB_VERSION})`);
  }
}

/**
 * Reads every central directory entry (metadata only) and checks it, so that nothing is
 * inflated before the whole archive has passed. Returns the file entries by name.
 */
async function readDirectory(zip: ZipFile, limits: BundleLimits): Promise<Map<string, Entry>> {
  // Refused before reading a single entry; manifest.json is the one entry that is not a file.
  if (zip.entryCount > limits.maxFiles + 1) {
    throw new BundleError(`the artifact bundle has ${zip.entryCount} entries; at most ${limits.maxFiles} files are allowed`);
  }
  const files = new Map<string, Entry>();
  const names = new Set<string>();
  let total = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      // yauzl does not look for these; a second entry of a name could shadow the first.
      if (names.has(name)) throw new BundleError(`the artifact bundle has two ZIP entries named ${quote(name)}`);
      names.add(name);
      checkEntry(entry, limits);
      total += entry.uncompressedSize;
      if (total > limits.maxTotalBytes) {
        throw new BundleError(`the artifact bundle is more than ${limits.maxTotalBytes} bytes uncompressed; that is the limit`);
      }
      // Directories hold nothing; keep them out so the manifest cannot point at one.
      if (!name.endsWith('/')) files.set(name, entry);
    }
  } catch (error) {
    if (error instanceof BundleError) throw error;
    throw new BundleError(`the artifact bundle is not a readable ZIP archive: ${describe(error)}`);
  }
  return files;
}

/** One entry's declared facts against the limits; nothing of it has been read yet. */
function checkEntry(entry: Entry, limits: BundleLimits): void {
  const name = quote(entry.fileName);
  const { compressionMethod: method, compressedSize, uncompressedSize: size } = entry;
  // yauzl itself refuses strong encryption (flag 0x40) while listing; traditional and AES are ours.
  if (entry.isEncrypted() || method === METHOD_AES) {
    throw new BundleError(`ZIP entry ${name} is encrypted; artifact bundles must not be encrypted`);
  }
  if (method !== METHOD_STORED && method !== METHOD_DEFLATE) {
    throw new BundleError(`ZIP entry ${name} uses compression method ${method}; only stored (0) and deflate (8) are supported`);
  }
  if (size > limits.maxFileBytes) {
    throw new BundleError(`ZIP entry ${name} is ${size} bytes uncompressed; the limit is ${limits.maxFileBytes} bytes per file`);
  }
  if (size > RATIO_EXEMPT_BYTES && size > compressedSize * limits.maxCompressionRatio) {
    const ratio = compressedSize === 0 ? 'an unbounded' : `a ${Math.round(size / compressedSize)}:1`;
    throw new BundleError(
      `ZIP entry ${name} has ${ratio} compression ratio, above the limit of ${limits.maxCompressionRatio}:1 (a zip bomb?)`,
    );
  }
}

/**
 * One entry's bytes, inflated as a stream and kept only up to its declared size, which
 * checkEntry held to the per-file limit and readDirectory summed within the total one, so no
 * entry can make us hold more than the limits allow however its data lies. (yauzl's
 * validateEntrySizes fails the stream at that point too; this check does not depend on it.)
 */
async function readEntry(zip: ZipFile, entry: Entry): Promise<Uint8Array> {
  const name = quote(entry.fileName);
  const fail = (what: string) => new BundleError(`ZIP entry ${name} cannot be read: ${what}`);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    const stream = await zip.openReadStreamPromise(entry);
    // Leaving the loop early (a throw) destroys the stream, which stops the inflating.
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > entry.uncompressedSize) throw fail(`it inflates to more than its declared ${entry.uncompressedSize} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    throw error instanceof BundleError ? error : fail(describe(error));
  }
  if (length !== entry.uncompressedSize) throw fail(`it inflates to ${length} bytes, not its declared ${entry.uncompressedSize}`);
  const content = Buffer.concat(chunks, length);
  if (crc32(content) !== entry.crc32) throw fail('its data fails the CRC-32 check');
  return content;
}

/** A library error's message, for the client: it names ZIP structures, never our internals. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
