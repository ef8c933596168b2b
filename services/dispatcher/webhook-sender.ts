// Sends one webhook request, safely: https only, no redirects followed, a 10-second deadline for
// the answer, and no private, loopback or link-local receivers unless the host is allowed
// (ERRATA_WEBHOOK_ALLOW_HOSTS). The address is checked where it matters, on the socket once it
// is connected, so a name that resolves to a public address for the check and a private one
// for the connection (DNS rebinding) is still refused; the lookup also skips private addresses
// so that a name with both kinds reaches a public one.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface SenderOptions {
  allowHosts: string[];
  /** Trusted CA certificates (PEM), replacing the default store when set. */
  ca?: Array<string | Buffer>;
  timeoutMs: number;
  userAgent: string;
}

export interface SendResult {
  status?: number;
  error?: string;
  latencyMs: number;
}

/** Public unicast only: no private, loopback, link-local, multicast or reserved addresses. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

export function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SenderOptions,
): Promise<SendResult> {
  const started = performance.now();
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = options.allowHosts.includes(host);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: Math.round(performance.now() - started) });
    };
    if (target.protocol !== 'https:') return finish({ error: `refused: ${target.protocol}// is not https://` });
    const req = request(
      {
        protocol: 'https:',
        hostname: host,
        port: target.port || 443,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
        ...(options.ca ? { ca: options.ca } : {}),
        ...(allowed ? {} : { lookup: publicOnlyLookup }),
      },
      (res) => {
        finish({ status: res.statusCode });
        res.resume();
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${options.timeoutMs / 1000} s` });
      req.destroy();
    }, options.timeoutMs);
    req.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        const address = socket.remoteAddress ?? '';
        if (!allowed && !isPublicAddress(address)) {
          finish({
            error: `refused: ${host} connected to ${address}, a private, loopback or link-local address; allow it with ERRATA_WEBHOOK_ALLOW_HOSTS`,
          });
          socket.destroy();
        }
      });
    });
    req.on('error', (error) => finish({ error: error.message }));
    req.end(body);
  });
}

/** dns.lookup that answers only public addresses, and fails when there is none. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const usable = addresses.filter((a) => isPublicAddress(a.address));
    if (usable.length === 0) {
      const refused = Object.assign(
        new Error(
          `refused: ${hostname} resolves only to private, loopback or link-local addresses; allow it with ERRATA_WEBHOOK_ALLOW_HOSTS`,
        ),
        { code: 'ERRATA_PRIVATE_ADDRESS' },
      );
      return callback(refused, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
    callback(null, usable[0]!.address, usable[0]!.family);
  });
};
