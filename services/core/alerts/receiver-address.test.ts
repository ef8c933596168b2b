import { describe, expect, it } from 'vitest';
import { PRIVATE_LITERAL_HOSTS, RECEIVER_REFUSED as REFUSED } from '../../../test/support/private-receivers.ts';
import { RECEIVER_REFUSED, isPublicAddress, privateReceiverProblem, refusedLiteral } from './receiver-address.ts';

const url = (host: string) => new URL(`https://${host}:8443/hooks`);

describe('receiver addresses', () => {
  it('judges every listed form of a private address as written in a URL, IPv4-mapped ones as IPv4', () => {
    expect(PRIVATE_LITERAL_HOSTS.map((host) => [host, refusedLiteral(url(host), [])])).toEqual(
      PRIVATE_LITERAL_HOSTS.map((host) => [host, expect.any(String)]),
    );
    // The URL parser writes the hex, decimal, octal and short forms as the address they mean.
    for (const host of ['0x7f000001', '2130706433', '0177.0.0.1', '127.1'])
      expect(refusedLiteral(url(host), [])).toBe('127.0.0.1');
    expect(refusedLiteral(url('[::ffff:127.0.0.1]'), [])).toBe('::ffff:7f00:1');
  });

  it('refuses the other special ranges too, and passes public addresses and names', () => {
    for (const host of [
      '100.64.0.1',
      '192.168.1.1',
      '[fe80::1]',
      '[fc00::1]',
      '[::127.0.0.1]',
      '[64:ff9b::a00:1]',
      '224.0.0.1',
    ]) {
      expect(refusedLiteral(url(host), []), host).toBeDefined();
    }
    for (const host of ['93.184.216.34', '[2606:4700:4700::1111]', '[::ffff:93.184.216.34]']) {
      expect(refusedLiteral(url(host), []), host).toBeUndefined();
    }
    // A name is judged when it is sent to: what it resolves to may change.
    for (const host of ['hooks.example.com', 'localhost']) expect(refusedLiteral(url(host), []), host).toBeUndefined();
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false);
    expect(isPublicAddress('not an address')).toBe(false);
  });

  it('passes a private literal whose host is allowed, however the URL or the setting writes it', () => {
    expect(refusedLiteral(url('127.0.0.1'), ['127.0.0.1'])).toBeUndefined();
    expect(refusedLiteral(url('0x7f000001'), ['127.0.0.1'])).toBeUndefined();
    expect(refusedLiteral(url('[::1]'), ['::1'])).toBeUndefined();
    expect(refusedLiteral(url('[::1]'), ['[::1]'])).toBeUndefined();
    expect(refusedLiteral(url('10.0.0.1'), ['127.0.0.1'])).toBe('10.0.0.1');
  });

  it('says at channel time what is wrong and how to fix it; refusals when sending read alike', () => {
    expect(privateReceiverProblem('https://0x7f000001:8443/x', [])).toMatch(
      /^its host 127\.0\.0\.1 is a private, loopback or link-local address.*ERRATA_WEBHOOK_ALLOW_HOSTS/,
    );
    expect(privateReceiverProblem('https://hooks.example.com/x', [])).toBeUndefined();
    expect(privateReceiverProblem('https://10.0.0.1/x', ['10.0.0.1'])).toBeUndefined();
    expect(privateReceiverProblem('not a url', [])).toBeUndefined();
    expect(RECEIVER_REFUSED).toBe(REFUSED);
  });
});
