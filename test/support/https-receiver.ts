// A real HTTPS webhook receiver on loopback for the alert suites: a self-signed certificate for
// localhost made with the openssl CLI (its PEM is the CA to trust), and a script of answers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReceivedRequest {
  /** The path and query it was sent to. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  at: number;
}

export interface HttpsReceiver {
  url: string;
  caPem: string;
  received: ReceivedRequest[];
  /** What to answer next: a status, 'hang' to never answer, or 'endless' for a 200 whose body never ends; then 200. */
  script: Array<number | 'hang' | 'endless'>;
  /** How many 'endless' answers the sender has stopped reading (their connections closed). */
  endlessClosed(): number;
  close(): Promise<void>;
}

function selfSignedLocalhost(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'errata-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const tls = selfSignedLocalhost();
  const received: ReceivedRequest[] = [];
  const script: HttpsReceiver['script'] = [];
  let endlessClosed = 0;
  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks), at: Date.now() });
      const next = script.shift() ?? 200;
      if (next === 'hang') return;
      if (next === 'endless') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const drip = setInterval(() => res.write('x'), 50);
        res.on('close', () => {
          clearInterval(drip);
          endlessClosed++;
        });
        return;
      }
      res.writeHead(next, next >= 300 && next < 400 ? { location: 'https://localhost/elsewhere' } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}/hooks/errata`,
    caPem: tls.cert,
    received,
    script,
    endlessClosed: () => endlessClosed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
