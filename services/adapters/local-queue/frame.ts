// On-disk framing of one queue record in a segment file:
//   u32 length of the rest | u32 CRC-32 of the rest | u64 sequence | u16 key length | key | value
// The CRC lets recovery tell a record torn by a crash mid-write from a whole one; the
// sequence number (per topic, increasing) lets the lag be computed from two record headers.
import { crc32 } from 'node:zlib';

export const FRAME_HEADER = 8;
const FIXED = 8 + 2;
const MAX_KEY_BYTES = 0xffff;

export function encodeFrame(sequence: number, key: string, value: Buffer): Buffer {
  const keyBytes = Buffer.from(key, 'utf8');
  if (keyBytes.length > MAX_KEY_BYTES) throw new Error(`queue record key is longer than ${MAX_KEY_BYTES} bytes`);
  const rest = FIXED + keyBytes.length + value.length;
  const frame = Buffer.allocUnsafe(FRAME_HEADER + rest);
  frame.writeUInt32LE(rest, 0);
  frame.writeBigUInt64LE(BigInt(sequence), FRAME_HEADER);
  frame.writeUInt16LE(keyBytes.length, FRAME_HEADER + 8);
  keyBytes.copy(frame, FRAME_HEADER + FIXED);
  value.copy(frame, FRAME_HEADER + FIXED + keyBytes.length);
  frame.writeUInt32LE(crc32(frame.subarray(FRAME_HEADER)), 4);
  return frame;
}

type DecodedFrame =
  | { kind: 'record'; sequence: number; key: string; value: Buffer; size: number }
  /** Not enough bytes yet: the frame continues beyond the buffer. */
  | { kind: 'partial' }
  /** Bytes that are not a whole, intact frame. */
  | { kind: 'corrupt' };

export function decodeFrame(buffer: Buffer, at: number): DecodedFrame {
  if (buffer.length - at < FRAME_HEADER) return { kind: 'partial' };
  const rest = buffer.readUInt32LE(at);
  if (rest < FIXED) return { kind: 'corrupt' };
  if (buffer.length - at - FRAME_HEADER < rest) return { kind: 'partial' };
  const body = buffer.subarray(at + FRAME_HEADER, at + FRAME_HEADER + rest);
  if (crc32(body) !== buffer.readUInt32LE(at + 4)) return { kind: 'corrupt' };
  const keyLength = body.readUInt16LE(8);
  if (keyLength > rest - FIXED) return { kind: 'corrupt' };
  return {
    kind: 'record',
    sequence: Number(body.readBigUInt64LE(0)),
    key: body.subarray(FIXED, FIXED + keyLength).toString('utf8'),
    value: body.subarray(FIXED + keyLength),
    size: FRAME_HEADER + rest,
  };
}

/** The sequence number in a frame's first bytes, without checking the rest of the frame. */
export function peekSequence(header: Buffer): number | undefined {
  return header.length >= FRAME_HEADER + 8 ? Number(header.readBigUInt64LE(FRAME_HEADER)) : undefined;
}
