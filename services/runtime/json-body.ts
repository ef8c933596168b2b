// Reading a small JSON request body (agent APIs), bounded in size. Errors are the typed ones,
// so each surface maps them its own way (HTTP statuses, or JSON-RPC errors on /mcp).
import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, UserInputError } from '../core/errors.ts';

export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new PayloadTooLargeError(`request body over ${maxBytes} bytes`, maxBytes);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new UserInputError('the request body is not valid JSON');
  }
}
