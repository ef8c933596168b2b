// An uploaded bundle read where it lies, chunk by chunk, as yauzl reads a ZIP (a random access
// reader): its chunks are never joined into one buffer, which for a 1 GiB bundle would be 1 GiB
// of memory per assembly. The two chunks read last are kept, since the ZIP's directory is read
// from its end and then its entries, in the order they lie (read-artifact-bundle.ts). Loading a
// chunk can mean inflating 8 MiB from 8 KB of gzip, so loads are capped: a ZIP read that way
// loads each chunk about once each for its end records, directory, manifest and files.
import { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { BundleError } from '../../core/sourcemaps/artifact-manifest.ts';

const LOADS_PER_CHUNK = 4;
/** Beyond LOADS_PER_CHUNK per chunk: the few reads outside that order (SYSB header, ZIP64 records). */
const EXTRA_LOADS = 4;

export class ChunkedBundle extends yauzl.RandomAccessReader {
  readonly size: number;
  private readonly starts: number[] = [];
  private recent: Array<{ index: number; bytes: Promise<Buffer> }> = [];
  private loads = 0;
  private readonly maxLoads: number;

  /** `load(i)` gives chunk i, whose length must be `sizes[i]`. */
  constructor(
    private readonly load: (index: number) => Promise<Buffer>,
    private readonly sizes: number[],
  ) {
    super();
    let at = 0;
    for (const size of sizes) {
      this.starts.push(at);
      at += size;
    }
    this.size = at;
    this.maxLoads = LOADS_PER_CHUNK * sizes.length + EXTRA_LOADS;
  }

  /** Bytes [start, end) as one buffer: for the few bytes read outside yauzl (the SYSB header). */
  async slice(start: number, end: number): Promise<Buffer> {
    const pieces: Buffer[] = [];
    for await (const piece of this.pieces(start, Math.min(end, this.size))) pieces.push(piece);
    return Buffer.concat(pieces);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from(this.pieces(start, end), { objectMode: false });
  }

  private async *pieces(start: number, end: number): AsyncGenerator<Buffer> {
    for (let index = this.indexOf(start); start < end && index < this.sizes.length; index++) {
      const chunk = await this.chunk(index);
      if (chunk.length !== this.sizes[index]) throw new Error(`chunk ${index} changed size while the bundle was read`);
      const to = Math.min(chunk.length, end - this.starts[index]!);
      const from = start - this.starts[index]!;
      if (to > from) yield chunk.subarray(from, to);
      start = this.starts[index]! + to;
    }
  }

  /** The chunk holding byte `offset`: the last one starting at or before it. */
  private indexOf(offset: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    // Among chunks starting at the same offset (empty ones), the first.
    while (low > 0 && this.starts[low - 1] === this.starts[low]) low--;
    return low;
  }

  private chunk(index: number): Promise<Buffer> {
    const kept = this.recent.find((entry) => entry.index === index);
    if (kept) return kept.bytes;
    if (++this.loads > this.maxLoads) {
      throw new BundleError(
        `reading the artifact bundle would load its ${this.sizes.length} chunks more than ${this.maxLoads} times: ` +
          'its ZIP entries are out of any order a ZIP writer leaves them in',
      );
    }
    const bytes = this.load(index);
    this.recent = [{ index, bytes }, ...this.recent].slice(0, 2);
    return bytes;
  }
}
