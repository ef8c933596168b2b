// Reading a small request body, bounded in size: JSON (agent APIs) or text (dashboard forms).
// Errors are the typed ones,
// so each surface maps them its own way (HTTP statuses, or JSON-RPC errors on /mcp).
import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, UserInputError } from '../core/errors.ts';

/** Bytes of a refused body read and dropped so its client reads the 413, before its connection is closed instead. */
const MAX_DROPPED_BYTES = 8 * 1024 * 1024;

/**
 * The body as text. One over `maxBytes` is refused at once and the rest read and dropped, so the
 * client gets the 413: leaving a `for await` loop destroyed the request, and its connection with
 * it, and the client saw a reset instead.
 */
export function readBodyText(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const endedEarly = () => new UserInputError('the request body ended early: send it again');
    // Gone while the caller awaited something else: no event would come.
    if (req.destroyed && !req.complete) return reject(endedEarly());
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Dropping the rest of a refused body has its limit too: past it, the connection goes.
      if (refused) return void (size > maxBytes + MAX_DROPPED_BYTES && req.destroy());
      if (size <= maxBytes) return void chunks.push(chunk);
      refused = true;
      chunks.length = 0;
      reject(new PayloadTooLargeError(`request body over ${maxBytes} bytes`, maxBytes));
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
    req.once('close', () => req.complete || reject(endedEarly()));
  });
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
