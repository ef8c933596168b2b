import { Agent, createServer, request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { deferred } from '../../test/support/deferred.ts';
import { closeServer } from './graceful-close.ts';
import { listen } from './lifecycle.ts';

/** Far beyond the test's own timeout: the close must not wait for the cut-off. */
const CUT_OFF_MS = 10 * 60_000;

describe('closeServer', () => {
  it('ends a connection that has sent nothing at once, lets a request in flight finish, then ends its connection', async () => {
    const answer = deferred();
    const requested = deferred();
    const server = createServer((_req, res) => {
      requested.resolve();
      void answer.promise.then(() => res.end('done'));
    });
    server.keepAliveTimeout = CUT_OFF_MS;
    const { port } = await listen(server, '127.0.0.1', 0);

    const silent: Socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => silent.once('connect', resolve));
    const silentClosed = new Promise((resolve) => silent.once('close', resolve));
    silent.on('error', () => undefined);

    const response = new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/', agent: new Agent({ keepAlive: true }) }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
    await requested.promise;

    let closed = false;
    const closing = closeServer(server, CUT_OFF_MS).then(() => (closed = true));
    await silentClosed; // before the fix, only at the cut-off
    expect(closed).toBe(false); // the request in flight still holds the server

    answer.resolve();
    expect(await response).toBe('done');
    await closing; // before the fix, only at the cut-off: the answered connection was kept alive
    expect(closed).toBe(true);
  });

  it('ends an event stream at once: it never finishes, and its client reconnects', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/event-stream');
      res.write('data: first\n\n');
    });
    const { port } = await listen(server, '127.0.0.1', 0);
    const { closed } = await new Promise<{ closed: Promise<void> }>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/stream' }, (res) => {
        res.once('data', () => resolve({ closed: new Promise((done) => res.once('close', () => done())) }));
      })
        .on('error', reject)
        .end();
    });
    await closeServer(server, CUT_OFF_MS); // before, only at the cut-off
    await closed;
  });

  it('sends the whole of an answer ended after the close began, to a client reading slowly, then closes its connection', async () => {
    const size = 16 * 1024 * 1024;
    const answer = deferred();
    const requested = deferred();
    const server = createServer((_req, res) => {
      requested.resolve();
      void answer.promise.then(() => res.end(Buffer.alloc(size, 1)));
    });
    server.keepAliveTimeout = CUT_OFF_MS;
    const { port } = await listen(server, '127.0.0.1', 0);
    let received = 0;
    let response: IncomingMessage | undefined;
    const done = new Promise<void>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/', agent: new Agent({ keepAlive: true }) }, (res) => {
        response = res;
        res.pause(); // most of it waits in the server's buffers
        res.on('data', (chunk: Buffer) => (received += chunk.length));
        res.on('end', () => resolve());
        res.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    await requested.promise;
    const closing = closeServer(server, CUT_OFF_MS);
    answer.resolve();
    await new Promise((resolve) => setTimeout(resolve, 500)); // several of the close's sweeps
    response!.resume();
    await done; // before the fix, cut off ("aborted"): ended, it counted as idle to a sweep
    expect(received).toBe(size);
    await closing;
  });
});
