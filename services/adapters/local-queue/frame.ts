// On-disk framing of one queue record in a segment file:
//   u32 length of the rest | u32 CRC-32 of the rest | u64 sequence | u16 key length | key | value
// The CRC lets recovery tell a record torn by a crash mid-write from a whole one; the
// sequence number (per topic, increasing) lets the lag be computed from two record headers.
import { crc32 } from 'node:zlib';

export const FRAME_HEADER = 8;
const FIXED = 8 + 2;
/** The smallest frame: a header, a sequence number and a key length, with no key and no value. */
export const MIN_FRAME = FRAME_HEADER + FIXED;
const MAX_KEY_BYTES = 0xffff;

/**
 * A frame as the two buffers written one after the other: its header (with the key) and the value
 * as given, not copied. A copy would be one more allocation of the envelope's size per record, on
 * the thread that answers requests (docs/benchmarks.md, 2026-12-05 (second)).
 */
export function encodeFrame(sequence: number, key: string, value: Buffer): [Buffer, Buffer] {
  const keyBytes = Buffer.from(key, 'utf8');
  if (keyBytes.length > MAX_KEY_BYTES) throw new Error(`queue record key is longer than ${MAX_KEY_BYTES} bytes`);
  const rest = FIXED + keyBytes.length + value.length;
  const head = Buffer.allocUnsafe(FRAME_HEADER + FIXED + keyBytes.length);
  head.writeUInt32LE(rest, 0);
  head.writeBigUInt64LE(BigInt(sequence), FRAME_HEADER);
  head.writeUInt16LE(keyBytes.length, FRAME_HEADER + 8);
  keyBytes.copy(head, FRAME_HEADER + FIXED);
  // The CRC of the rest, continued from its first part into the value.
  head.writeUInt32LE(crc32(value, crc32(head.subarray(FRAME_HEADER))), 4);
  return [head, value];
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

/**
 * What the bytes at `at` claim as a frame (its whole size and its number), checked no further:
 * for finding where whole frames start again past damaged bytes.
 */
export function peekFrame(buffer: Buffer, at: number): { size: number; sequence: number } | undefined {
  if (buffer.length - at < FRAME_HEADER + 8) return undefined;
  const rest = buffer.readUInt32LE(at);
  if (rest < FIXED) return undefined;
  // Two 32-bit reads: this runs at every byte of a damaged stretch, where a BigInt each is slow.
  const sequence = buffer.readUInt32LE(at + FRAME_HEADER) + buffer.readUInt32LE(at + FRAME_HEADER + 4) * 2 ** 32;
  return { size: FRAME_HEADER + rest, sequence };
}

/** The sequence number in a frame's first bytes, without checking the rest of the frame. */
export function peekSequence(header: Buffer): number | undefined {
  return header.length >= FRAME_HEADER + 8 ? Number(header.readBigUInt64LE(FRAME_HEADER)) : undefined;
}
