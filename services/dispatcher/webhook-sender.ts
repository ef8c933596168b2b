// Sends one webhook request, safely: https only, no redirects followed, a 10-second deadline for
// the answer, and no private, loopback or link-local receivers unless the host is allowed
// (ERRATA_WEBHOOK_ALLOW_HOSTS; core/alerts/receiver-address.ts). An IP literal is refused before
// any connection (Node connects to one without a lookup); a name's lookup answers only public
// addresses, so a name with both kinds reaches a public one; and the connected socket is checked
// again as a last guard. Every refusal of a literal is recorded with one text, so the delivery
// log never tells whether a private port is open; every name that resolves to no public address
// with one other (naming the host), whether it does not exist or is private, so the log never
// tells which internal names exist. A name is looked up with c-ares (dns.Resolver, each try
// 2 s, twice), not getaddrinfo: dns.lookup holds one of libuv's four pool threads, which the
// queue's file writes and zlib share, for as long as a name server takes, and a few channels on
// a domain whose name server never answers held them all past the 10-second deadline. c-ares
// waits on the event loop instead, and reads /etc/resolv.conf but not /etc/hosts, which names
// no public receiver.
import { Resolver } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { request } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import {
  RECEIVER_REFUSED,
  isAllowedHost,
  isPublicAddress,
  refusedLiteral,
  unresolvedReceiver,
} from '../core/alerts/receiver-address.ts';

export interface SenderOptions {
  allowHosts: string[];
  /** Trusted CA certificates (PEM), replacing the default store when set. */
  ca?: Array<string | Buffer>;
  timeoutMs: number;
  userAgent: string;
  /** Name servers to ask instead of /etc/resolv.conf's ("127.0.0.1:5353"); for tests. */
  nameServers?: string[];
}

interface SendResult {
  status?: number;
  error?: string;
  /**
   * Refused before any connection, by what the URL itself says (not https://, a refused IP
   * literal): trying again gives the same answer, so the delivery fails for good.
   */
  refused?: true;
  latencyMs: number;
}

export function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SenderOptions,
): Promise<SendResult> {
  const started = performance.now();
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const allowed = isAllowedHost(host, options.allowHosts);
  const refusal =
    target.protocol !== 'https:'
      ? `refused: ${target.protocol}// is not https://`
      : refusedLiteral(target, options.allowHosts) !== undefined
        ? RECEIVER_REFUSED
        : undefined;
  if (refusal) return Promise.resolve({ error: refusal, refused: true, latencyMs: Math.round(performance.now() - started) });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: Math.round(performance.now() - started) });
    };
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
        ...(allowed ? {} : { lookup: publicOnlyLookup(resolverFor(options)) }),
      },
      (res) => {
        finish({ status: res.statusCode });
        // The status is all a delivery needs: the body is not read, and the connection (ours
        // alone, agent: false) is closed, so a body that never ends holds nothing of ours.
        res.destroy();
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${options.timeoutMs / 1000} s` });
      req.destroy();
    }, options.timeoutMs);
    req.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        if (!allowed && !isPublicAddress(socket.remoteAddress ?? '')) {
          finish({ error: isIP(host) ? RECEIVER_REFUSED : unresolvedReceiver(host) });
          socket.destroy();
        }
      });
    });
    req.on('error', (error) => finish({ error: error.message }));
    req.end(body);
  });
}

/** The resolver every send shares, or one for the name servers a test gave. */
const sharedResolver = new Resolver({ timeout: 2_000, tries: 2 });
function resolverFor(options: SenderOptions): Resolver {
  if (!options.nameServers) return sharedResolver;
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers(options.nameServers);
  return resolver;
}

/**
 * A lookup that answers only public addresses, and fails when there is none with one error for
 * every reason (no such name, only private addresses, a failed lookup): which of them it was is
 * what would tell the delivery log's reader that an internal name exists.
 */
function publicOnlyLookup(resolver: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const asked = [
      family === 6 ? undefined : resolver.resolve4(hostname).then((list) => list.map((address) => ({ address, family: 4 }))),
      family === 4 ? undefined : resolver.resolve6(hostname).then((list) => list.map((address) => ({ address, family: 6 }))),
    ].filter((answer) => answer !== undefined);
    void Promise.allSettled(asked).then((answers) => {
      const usable: LookupAddress[] = answers
        .flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []))
        .filter((a) => isPublicAddress(a.address));
      if (usable.length === 0) {
        return callback(Object.assign(new Error(unresolvedReceiver(hostname)), { code: 'ERRATA_NO_PUBLIC_ADDRESS' }), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
