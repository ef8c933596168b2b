import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame } from './frame.ts';

describe('queue frames', () => {
  it('writes the value as given, after a header whose CRC covers it', () => {
    const value = Buffer.from('{"message":"a record"}');
    const [head, written] = encodeFrame(42, 'project:event', value);
    // Not copied: a copy is one more allocation of the envelope's size per record.
    expect(written).toBe(value);
    const bytes = Buffer.concat([head, written]);
    expect(decodeFrame(bytes, 0)).toEqual({ kind: 'record', sequence: 42, key: 'project:event', value, size: bytes.length });
    expect(decodeFrame(bytes.subarray(0, bytes.length - 1), 0)).toEqual({ kind: 'partial' });
    const torn = Buffer.from(bytes);
    torn.writeUInt8(torn.readUInt8(torn.length - 3) ^ 0x01, torn.length - 3);
    expect(decodeFrame(torn, 0)).toEqual({ kind: 'corrupt' });
  });
});
