// On-disk framing of one queue record in a segment file:
//   u32 length of the rest | u32 CRC-32 of the rest | u16 key length | key | value
// The CRC lets recovery tell a record torn by a crash mid-write from a whole one.
import { crc32 } from 'node:zlib';

const HEADER = 8;
export const MAX_KEY_BYTES = 0xffff;

export function encodeFrame(key: string, value: Buffer): Buffer {
  const keyBytes = Buffer.from(key, 'utf8');
  if (keyBytes.length > MAX_KEY_BYTES) throw new Error(`queue record key is longer than ${MAX_KEY_BYTES} bytes`);
  const rest = 2 + keyBytes.length + value.length;
  const frame = Buffer.allocUnsafe(HEADER + rest);
  frame.writeUInt32LE(rest, 0);
  frame.writeUInt16LE(keyBytes.length, HEADER);
  keyBytes.copy(frame, HEADER + 2);
  value.copy(frame, HEADER + 2 + keyBytes.length);
  frame.writeUInt32LE(crc32(frame.subarray(HEADER)), 4);
  return frame;
}

export type DecodedFrame =
  | { kind: 'record'; key: string; value: Buffer; size: number }
  /** Not enough bytes yet: the frame continues beyond the buffer. */
  | { kind: 'partial' }
  /** Bytes that are not a whole, intact frame. */
  | { kind: 'corrupt' };

export function decodeFrame(buffer: Buffer, at: number): DecodedFrame {
  if (buffer.length - at < HEADER) return { kind: 'partial' };
  const rest = buffer.readUInt32LE(at);
  if (rest < 2) return { kind: 'corrupt' };
  if (buffer.length - at - HEADER < rest) return { kind: 'partial' };
  const body = buffer.subarray(at + HEADER, at + HEADER + rest);
  if (crc32(body) !== buffer.readUInt32LE(at + 4)) return { kind: 'corrupt' };
  const keyLength = body.readUInt16LE(0);
  if (keyLength > rest - 2) return { kind: 'corrupt' };
  return {
    kind: 'record',
    key: body.subarray(2, 2 + keyLength).toString('utf8'),
    value: body.subarray(2 + keyLength),
    size: HEADER + rest,
  };
}
