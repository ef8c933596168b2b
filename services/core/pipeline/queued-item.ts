// The message ingest puts on the queue for each accepted item, and the dispatcher takes off.
// A JSON header line, then the item payload exactly as the SDK sent it (decompressed): the
// request path never re-serializes event JSON, and the dispatcher parses it once.
import { UserInputError } from '../errors.ts';

export const TOPICS = {
  events: 'events.received',
  logs: 'logs.received',
} as const;

export interface QueuedItemHeader {
  v: 1;
  kind: 'event' | 'log';
  /** The event id for events; a fresh id per log container, so redelivery can be recognised. */
  id: string;
  projectId: number;
  organizationId: number;
  /** Float seconds since the epoch when ingest accepted the item. */
  receivedAt: number;
  clientIp?: string;
  /** The envelope header's `sdk`, for items whose payload does not name it. */
  sdk?: unknown;
  /** The envelope header's `sent_at` (a bounded string), for clock-drift correction. */
  sentAt?: string;
  /** For log containers: the records declared (and rate-limited) at ingest; more are dropped. */
  itemCount?: number;
}

interface QueuedItem {
  header: QueuedItemHeader;
  payload: Buffer;
}

export function encodeQueuedItem(item: QueuedItem): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify(item.header)}\n`, 'utf8'), item.payload]);
}

export function decodeQueuedItem(bytes: Buffer): QueuedItem {
  const newline = bytes.indexOf(0x0a);
  if (newline === -1) throw new UserInputError('queued item has no header line');
  const header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as QueuedItemHeader;
  if (header.v !== 1 || (header.kind !== 'event' && header.kind !== 'log')) {
    throw new UserInputError(`queued item has an unknown header version or kind: ${String(header.v)}/${String(header.kind)}`);
  }
  return { header, payload: bytes.subarray(newline + 1) };
}
