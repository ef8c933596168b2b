import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientOf, createHttpServer } from './http-server.ts';
import { createMetrics } from './metrics.ts';

describe('clientOf', () => {
  it('counts an IPv4 address as itself, also when mapped into IPv6', () => {
    expect(clientOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts IPv6 addresses by their /64, however they are written', () => {
    expect(clientOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:3::1')).not.toBe(clientOf('2001:db8:1:2::1'));
  });
});

describe('the body guard', () => {
  it('does not count the time a handler takes before it reads the body against the client', async () => {
    const limits = {
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 60_000,
      bodyTimeoutMs: 1000,
      keepAliveTimeoutMs: 5000,
      maxHeaderBytes: 16 * 1024,
      maxConnections: 100,
      maxConnectionsPerClient: 100,
    };
    // Authenticating for 2.5 s (a slow database) before reading a body that arrived at once.
    const server = createHttpServer(
      async (req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 2500));
        let bytes = 0;
        for await (const chunk of req) bytes += (chunk as Buffer).length;
        res.end(String(bytes));
      },
      limits,
      createMetrics({ processMetrics: false }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      // Large enough that the socket stops reading until the handler does.
      const response = await fetch(url, { method: 'POST', body: new Uint8Array(4 * 1024 * 1024) });
      // Before, the guard cut it with 408 after its second, blaming the client.
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(String(4 * 1024 * 1024));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
