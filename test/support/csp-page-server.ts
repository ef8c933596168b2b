// A tiny server for browser tests of our harness and bundle outside the app: fixed routes, each
// served under the dashboard's exact Content-Security-Policy (taken from the app's own module).
import { createServer, type IncomingMessage } from 'node:http';
import { SECURITY_HEADERS } from '../../services/dashboard/security-headers.ts';
import { freePort } from './standalone-server.ts';

interface Route {
  type: string;
  body: string | Uint8Array;
}

/** A route is fixed, or made from the request (to echo what the browser sent). */
export async function serveUnderCsp(
  routes: Record<string, Route | ((req: IncomingMessage) => Route)>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const found = routes[req.url ?? ''];
    const route = typeof found === 'function' ? found(req) : found;
    res.writeHead(route ? 200 : 404, {
      'content-type': route?.type ?? 'text/plain',
      'content-security-policy': SECURITY_HEADERS['Content-Security-Policy']!,
    });
    res.end(route?.body ?? 'not found');
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
