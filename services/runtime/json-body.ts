// Reading a small request body, bounded in size: JSON (agent APIs) or text (dashboard forms).
// Errors are the typed ones,
// so each surface maps them its own way (HTTP statuses, or JSON-RPC errors on /mcp).
import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, UserInputError } from '../core/errors.ts';

export async function readBodyText(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new PayloadTooLargeError(`request body over ${maxBytes} bytes`, maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(req, maxBytes);
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new UserInputError('the request body is not valid JSON');
  }
}
