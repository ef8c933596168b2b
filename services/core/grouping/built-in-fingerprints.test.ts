import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { md5 } from './compute-grouping.ts';

const group = (raw: unknown) => groupEvent(prepareEvent(raw, { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 })).grouping;
const frame = (fn: string) => ({ function: fn, abs_path: `src/${fn}.tsx`, filename: `${fn}.tsx`, in_app: true });

describe("Sentry's built-in fingerprint rules", () => {
  it('groups every chunk load failure of a JavaScript app as one issue, whatever fingerprint the SDK sent', () => {
    const chunk = (name: string, extra: object = {}) =>
      group({
        platform: 'javascript',
        exception: [{ type: 'ChunkLoadError', value: `Loading chunk ${name} failed.`, stacktrace: { frames: [frame(name)] } }],
        ...extra,
      });
    const expected = { hashes: [md5(['chunkloaderror'])], strategy: 'custom' };
    expect(chunk('app')).toEqual(expected);
    expect(chunk('vendor', { fingerprint: ['{{ default }}'] })).toEqual(expected);
    expect(chunk('pages', { fingerprint: ['{{ default }}', 'dogs are great'] })).toEqual(expected);
    expect(chunk('pages', { fingerprint: ['mine'] })).toEqual(expected);
  });

  it('also knows a chunk load failure by its value, in any case, and only in JavaScript', () => {
    const byValue = group({ platform: 'node', exception: [{ type: 'Error', value: '  chunkloaderror: chunk 7 missing' }] });
    expect(byValue.hashes).toEqual([md5(['chunkloaderror'])]);
    const python = group({ platform: 'python', exception: [{ type: 'ChunkLoadError', value: 'x' }] });
    expect(python.hashes).toEqual([md5(['ChunkLoadError', 'x'])]);
    const otherCase = group({ platform: 'javascript', exception: [{ type: 'chunkLoadError', value: 'x' }] });
    expect(otherCase.hashes).toEqual([md5(['chunkLoadError', 'x'])]);
  });

  it('groups a hydration mismatch per transaction', () => {
    const hydration = (transaction: string | undefined) =>
      group({
        platform: 'javascript',
        exception: [{ type: 'Error', value: 'Text content does not match server-rendered HTML.' }],
        ...(transaction ? { tags: { transaction } } : {}),
      });
    expect(hydration('/checkout').hashes).toEqual([md5(['hydrationerror', '/checkout'])]);
    const byTransaction = group({
      platform: 'javascript',
      transaction: '/cart',
      message: 'Text content does not match server-rendered HTML.',
    });
    expect(byTransaction.hashes).toEqual([md5(['hydrationerror', '/cart'])]);
    expect(hydration(undefined).hashes).toEqual([md5(['Error', 'Text content does not match server-rendered HTML.'])]);
  });
});
