// Every way of writing a private, loopback, link-local or unspecified receiver address that
// issue 14 lists, as URL hosts: decimal, hex, octal and short IPv4 forms, IPv6 and IPv4-mapped
// IPv6. Shared by the unit tests of the channel check and the sender, and the standalone suite.
export const PRIVATE_LITERAL_HOSTS = [
  '127.0.0.1',
  '[::1]',
  '0x7f000001',
  '2130706433',
  '0177.0.0.1',
  '127.1',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '0.0.0.0',
  '[::]',
  '10.0.0.1',
  '169.254.169.254',
] as const;

/** The one error every refused receiver is recorded with, however it was refused. */
export const RECEIVER_REFUSED =
  "refused: the receiver's address is private, loopback or link-local; allow its host with ERRATA_WEBHOOK_ALLOW_HOSTS";

/**
 * What a name that does not resolve to a public address is recorded with: the same whether it
 * does not exist or resolves only to private addresses, so the log cannot map internal names.
 */
export const nameRefused = (host: string) =>
  `refused: ${host} does not resolve to a public address; check the name, or allow it with ERRATA_WEBHOOK_ALLOW_HOSTS`;
