// Which webhook receivers alerts may go to: public unicast addresses only, unless the receiver's
// host is in ERRATA_WEBHOOK_ALLOW_HOSTS (passed in as data). A URL whose host is an IP literal is
// judged without the network, when a channel is made or changed and again before each send
// (dispatcher/webhook-sender.ts); a name is judged only when sent to, on what it resolves to.
import ipaddr from 'ipaddr.js';

/**
 * The one error every refused receiver is recorded with, whether refused before connecting, by
 * the lookup or on the connected socket: nothing in the delivery log tells an organization admin
 * whether a private port is open.
 */
export const RECEIVER_REFUSED =
  "refused: the receiver's address is private, loopback or link-local; allow its host with ERRATA_WEBHOOK_ALLOW_HOSTS";

/**
 * What a receiver named by a name, not an IP literal, is recorded with when the name resolves to
 * no public address: the same whether it does not resolve at all or only to private addresses
 * (or the lookup failed), so the delivery log cannot tell an organization admin which internal
 * names exist. It still points a user with a typo at the name.
 */
export function unresolvedReceiver(host: string): string {
  return `refused: ${host} does not resolve to a public address; check the name, or allow it with ERRATA_WEBHOOK_ALLOW_HOSTS`;
}

/** The first 96 bits zero: ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d (RFC 4291). */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Public unicast only: no private, loopback, link-local, multicast or reserved addresses. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE)) return false;
  }
  return parsed.range() === 'unicast';
}

/** A host as ERRATA_WEBHOOK_ALLOW_HOSTS names it: lowercase, IPv6 without its brackets. */
function hostKey(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '');
}

export function isAllowedHost(host: string, allowHosts: readonly string[]): boolean {
  const key = hostKey(host);
  return allowHosts.some((allowed) => hostKey(allowed) === key);
}

/**
 * The address a URL's host is written as, or undefined for a name. The URL parser has already
 * rewritten the hex, octal, decimal and short IPv4 forms (0x7f000001, 2130706433, 0177.0.0.1,
 * 127.1) as dotted decimal, and an IPv6 host is the only kind with a colon.
 */
function literalOf(url: URL): string | undefined {
  const host = hostKey(url.hostname);
  if (host.includes(':')) return ipaddr.IPv6.isValid(host) ? host : undefined;
  return ipaddr.IPv4.isValidFourPartDecimal(host) ? host : undefined;
}

/** The non-public IP literal a receiver URL names and its host is not allowed to, if any. */
export function refusedLiteral(url: URL, allowHosts: readonly string[]): string | undefined {
  const address = literalOf(url);
  if (address === undefined || isPublicAddress(address) || isAllowedHost(url.hostname, allowHosts)) return undefined;
  return address;
}

/** Why a channel may not have this URL, for the one who sets it; undefined when it may. */
export function privateReceiverProblem(url: string, allowHosts: readonly string[]): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (refusedLiteral(parsed, allowHosts) === undefined) return undefined;
  return (
    `its host ${parsed.hostname} is a private, loopback or link-local address, where alerts are never sent; ` +
    "give the receiver's public address or name, or have the server allow the host with ERRATA_WEBHOOK_ALLOW_HOSTS"
  );
}
