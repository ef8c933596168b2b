// The sender's refusal of private receivers, on real sockets: a plain TCP server on loopback
// counts the connections it is offered, so "refused before connecting" is a fact, not a
// message; and every refusal reads alike, so the delivery log cannot tell an open port from a
// closed one.
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectionCounter, type ConnectionCounter } from '../../test/support/connection-counter.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/support/https-receiver.ts';
import { startNameServer } from '../../test/support/name-server.ts';
import { nameRefused, PRIVATE_LITERAL_HOSTS, RECEIVER_REFUSED as REFUSED } from '../../test/support/private-receivers.ts';
import { sendWebhook } from './webhook-sender.ts';

let counter: ConnectionCounter;
let receiver: HttpsReceiver;

beforeAll(async () => {
  counter = await startConnectionCounter();
  receiver = await startHttpsReceiver();
});
afterAll(async () => {
  await counter.close();
  await receiver.close();
});

const send = (url: string, allowHosts: string[] = []) =>
  sendWebhook(url, '{}', {}, { allowHosts, ca: [receiver.caPem], timeoutMs: 5_000, userAgent: 'errata/test' });

describe('sendWebhook refuses private receivers', () => {
  it('refuses every private IP literal before connecting, with one error', async () => {
    const results = await Promise.all(PRIVATE_LITERAL_HOSTS.map((host) => send(`https://${host}:${counter.port}/hook`)));
    expect(results.map((r) => [r.status, r.error])).toEqual(PRIVATE_LITERAL_HOSTS.map(() => [undefined, REFUSED]));
    expect(await counter.connectionsSoFar()).toBe(0);
  });

  it('records the same for an open port, a closed one and a name that resolves to loopback', async () => {
    const results = await Promise.all([
      send(`https://127.0.0.1:${counter.port}/`),
      send(`https://127.0.0.1:${counter.closedPort}/`),
      send(`https://localhost:${counter.port}/`),
      send(`https://localhost:${counter.closedPort}/`),
    ]);
    expect(results.map((r) => r.error)).toEqual([REFUSED, REFUSED, nameRefused('localhost'), nameRefused('localhost')]);
    expect(await counter.connectionsSoFar()).toBe(0);
  });

  it('records a name that does not exist like one that resolves only to private addresses', async () => {
    // Otherwise the delivery log tells an organization admin which internal names exist
    // ("getaddrinfo ENOTFOUND" for one, a refusal for the other).
    const results = await Promise.all([
      send(`https://errata-no-such-receiver.invalid:${counter.port}/`),
      send(`https://localhost:${counter.port}/`),
    ]);
    expect(results.map((r) => r.error)).toEqual([nameRefused('errata-no-such-receiver.invalid'), nameRefused('localhost')]);
    expect(await counter.connectionsSoFar()).toBe(0);
  });

  it('sends to a private IP literal whose host is allowed', async () => {
    const url = receiver.url.replace('//localhost:', '//127.0.0.1:');
    expect(await send(url, ['127.0.0.1'])).toMatchObject({ status: 200 });
    expect(receiver.received).toHaveLength(1);
  });
});

describe('sendWebhook looks names up with c-ares', () => {
  it('asks the name servers, and refuses a name they answer with private addresses only', async () => {
    const names = await startNameServer({ 'hook.errata.test': ['10.0.0.7', 'fd00::7'] });
    try {
      const options = { allowHosts: [], timeoutMs: 5_000, userAgent: 'errata/test', nameServers: [names.address] };
      const result = await sendWebhook(`https://hook.errata.test:${counter.port}/`, '{}', {}, options);
      expect(result.error).toBe(nameRefused('hook.errata.test'));
      expect(names.questions.sort()).toEqual(['A hook.errata.test', 'AAAA hook.errata.test']);
      expect(await counter.connectionsSoFar()).toBe(0);
    } finally {
      await names.close();
    }
  });

  it("holds none of libuv's pool threads while a name server never answers", async () => {
    // dns.lookup held a pool thread per lookup: four such channels stopped the file writes and
    // zlib that share the pool.
    const names = await startNameServer('silent');
    try {
      const options = { allowHosts: [], timeoutMs: 3_000, userAgent: 'errata/test', nameServers: [names.address] };
      let settled = 0;
      const sends = Array.from({ length: 6 }, (_, n) =>
        sendWebhook(`https://hook${n}.errata.test/`, '{}', {}, options).finally(() => (settled += 1)),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(names.questions.length).toBeGreaterThanOrEqual(6);
      // Work for the pool's four threads, twice over: it is done while every lookup still waits.
      await Promise.all(Array.from({ length: 8 }, () => promisify(pbkdf2)('x', 'salt', 1, 32, 'sha256')));
      expect(settled).toBe(0);
      expect((await Promise.all(sends)).map((r) => r.error)).toEqual(sends.map(() => 'no answer within 3 s'));
    } finally {
      await names.close();
    }
  });
});

describe('sendWebhook after the answer', () => {
  it('closes the connection once the status is in, whatever the body does after it', async () => {
    // A receiver answering 200 with a body that never ends held the dispatcher's connection, and
    // one file descriptor, for as long as it kept writing.
    receiver.script.push('endless');
    const url = receiver.url.replace('//localhost:', '//127.0.0.1:');
    expect(await send(url, ['127.0.0.1'])).toMatchObject({ status: 200 });
    const deadline = Date.now() + 5_000;
    while (receiver.endlessClosed() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(receiver.endlessClosed()).toBe(1);
  });
});
