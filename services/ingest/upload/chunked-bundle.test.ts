import { describe, expect, it } from 'vitest';
import { BundleError } from '../../core/sourcemaps/artifact-manifest.ts';
import { ChunkedBundle } from './chunked-bundle.ts';

/** Three chunks of ten bytes (0..29), counting how often each is loaded. */
function threeChunks() {
  const loads: number[] = [];
  const bytes = Buffer.from(Array.from({ length: 30 }, (_, i) => i));
  const bundle = new ChunkedBundle(
    async (index) => (loads.push(index), bytes.subarray(index * 10, index * 10 + 10)),
    [10, 10, 10],
  );
  return { bundle, loads };
}

describe('ChunkedBundle', () => {
  it('gives bytes across chunk boundaries, loading each chunk once when read in order', async () => {
    const { bundle, loads } = threeChunks();
    expect([...(await bundle.slice(5, 25))]).toEqual(Array.from({ length: 20 }, (_, i) => i + 5));
    expect([...(await bundle.slice(25, 29))]).toEqual([25, 26, 27, 28]);
    expect(loads).toEqual([0, 1, 2]);
  });

  it('refuses to load its chunks more than four times over, however it is read', async () => {
    // Reads cycling through three chunks miss a cache of two every time.
    const { bundle, loads } = threeChunks();
    const error = await (async () => {
      for (let read = 0; read < 100; read++) await bundle.slice((read % 3) * 10, (read % 3) * 10 + 1);
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(BundleError);
    expect((error as BundleError).message).toBe(
      'reading the artifact bundle would load its 3 chunks more than 16 times: its ZIP entries are out of any order a ZIP writer leaves them in',
    );
    expect(loads).toHaveLength(16);
  });
});
