// An example webhook receiver: verifies each request with verifyErrataWebhook and logs the
// alert once. Run it behind TLS (Errata only sends to https:// URLs):
//   ERRATA_WEBHOOK_SECRET=<Reveal> PORT=8443 TLS_KEY=key.pem TLS_CERT=cert.pem node receiver.ts
// (Node 22.6+ runs TypeScript directly; with Node 20 use `npx tsx receiver.ts`.)
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { pathToFileURL } from 'node:url';
import { verifyErrataWebhook } from './verify-errata-webhook.ts';

export interface ReceiverOptions {
  secret: string;
  /** What to do with each alert, once per delivery. */
  onAlert: (alert: { kind: string; title: string; url: string }) => void;
  /** Larger bodies are refused with 413; Errata's are a few kilobytes. */
  maxBodyBytes?: number;
  /** How many recent delivery ids and signatures are remembered to tell a repeat. */
  remembered?: number;
}

/** How much of a refused body is read and dropped so that the sender sees the 413; past it the connection is cut. */
const DRAINED_BYTES = 8 * 1024 * 1024;

/**
 * The request handler. A body over maxBodyBytes is refused with 413 without being held. A
 * delivery Errata sends again (X-Errata-Delivery is the same on every attempt: it timed out
 * waiting for an earlier answer) and a request replayed with the same signature are answered
 * 204 and not handled again.
 */
export function errataWebhookHandler(options: ReceiverOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const seen = new RecentKeys(options.remembered ?? 10_000);
  return (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
      else if (size > maxBodyBytes + DRAINED_BYTES) req.destroy();
      else chunks.length = 0;
    });
    req.on('end', () => {
      if (size > maxBodyBytes) {
        res.writeHead(413, { connection: 'close' }).end(`the body is over ${maxBodyBytes} bytes`);
        return;
      }
      const rawBody = Buffer.concat(chunks);
      const header = req.headers['x-errata-signature'] as string | undefined;
      const verdict = verifyErrataWebhook({ secret: options.secret, header, rawBody });
      if (!verdict.ok) {
        res.writeHead(401).end(verdict.reason);
        return;
      }
      // Only after verifying: an unsigned request must not mark a delivery id as handled.
      // Every verified signature is kept (it cannot be forged), so that no replay of Errata's
      // retry passes either; the delivery id only for a request handled: X-Errata-Delivery is
      // not signed, so a replay naming other ids must not mark them handled (the real
      // deliveries would then be dropped).
      const delivery = req.headers['x-errata-delivery'];
      const repeat = seen.has(`sig:${header}`) || (typeof delivery === 'string' && seen.has(`id:${delivery}`));
      seen.add(`sig:${header}`);
      if (!repeat) {
        if (typeof delivery === 'string') seen.add(`id:${delivery}`);
        // Event-derived text (title, location, ...) is untrusted: escape it wherever you show it.
        options.onAlert(JSON.parse(rawBody.toString('utf8')) as { kind: string; title: string; url: string });
      }
      res.writeHead(204).end();
    });
  };
}

/** The last `capacity` keys added, oldest forgotten first. */
class RecentKeys {
  private readonly keys = new Set<string>();
  constructor(private readonly capacity: number) {}
  has(key: string): boolean {
    return this.keys.has(key);
  }
  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.values().next().value!);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.ERRATA_WEBHOOK_SECRET ?? '';
  if (!secret) throw new Error('set ERRATA_WEBHOOK_SECRET to the channel secret (errata revealchannelsecret <id>)');
  const handler = errataWebhookHandler({ secret, onAlert: (alert) => console.log(`${alert.kind}: ${alert.title} ${alert.url}`) });
  const tls = { key: readFileSync(process.env.TLS_KEY ?? 'key.pem'), cert: readFileSync(process.env.TLS_CERT ?? 'cert.pem') };
  createServer(tls, handler).listen(Number(process.env.PORT ?? 8443));
}
