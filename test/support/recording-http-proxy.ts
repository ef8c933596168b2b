// An HTTP proxy in front of one server that records each request's method, URL and headers and
// forwards it unchanged: to see what a client library actually puts on the wire (the ClickHouse
// client's Content-Encoding) while the real server still answers.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

interface RecordingHttpProxy {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingHttpProxy(target: string): Promise<RecordingHttpProxy> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    requests.push({ method: incoming.method!, url: incoming.url!, headers: incoming.headers });
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
