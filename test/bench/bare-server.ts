// The baseline for the ingest benchmark: a bare node:http server that reads each request body
// and answers 200 with a JSON id, doing nothing else. Run as its own process, like Errata.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    Buffer.concat(chunks);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"id":"00000000000000000000000000000000"}');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
