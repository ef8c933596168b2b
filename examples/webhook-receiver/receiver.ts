// An example webhook receiver: verifies each request with verifyErrataWebhook and logs the
// alert. Run it behind TLS (Errata only sends to https:// URLs):
//   ERRATA_WEBHOOK_SECRET=<Reveal> PORT=8443 TLS_KEY=key.pem TLS_CERT=cert.pem node receiver.ts
// (Node 22.6+ runs TypeScript directly; with Node 20 use `npx tsx receiver.ts`.)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { verifyErrataWebhook } from './verify-errata-webhook.ts';

const secret = process.env.ERRATA_WEBHOOK_SECRET ?? '';
if (!secret) throw new Error('set ERRATA_WEBHOOK_SECRET to the channel secret (errata revealchannelsecret <id>)');

const server = createServer(
  { key: readFileSync(process.env.TLS_KEY ?? 'key.pem'), cert: readFileSync(process.env.TLS_CERT ?? 'cert.pem') },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const verdict = verifyErrataWebhook({ secret, header: req.headers['x-errata-signature'] as string, rawBody });
      if (!verdict.ok) {
        res.writeHead(401).end(verdict.reason);
        return;
      }
      // Event-derived text (title, location, ...) is untrusted: escape it wherever you show it.
      const alert = JSON.parse(rawBody.toString('utf8')) as { kind: string; title: string; url: string };
      console.log(`${alert.kind}: ${alert.title} ${alert.url}`);
      res.writeHead(204).end();
    });
  },
);
server.listen(Number(process.env.PORT ?? 8443));
