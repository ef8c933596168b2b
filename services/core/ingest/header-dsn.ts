// The `dsn` of an envelope header, read as Sentry's Relay reads it (request_meta.rs
// `PartialDsn`): an http(s) URL whose user is the public key and whose last path segment is the
// numeric project id, with any path prefix before it. Ingest compares it with the request
// (envelope-auth.ts); the host is not compared, as Relay does not.
import { isPublicKey } from './sentry-auth.ts';

export interface HeaderDsn {
  publicKey: string;
  projectId: number;
}

/** The DSN's key and project id, or undefined when the value is no DSN. */
export function parseHeaderDsn(value: unknown): HeaderDsn | undefined {
  if (typeof value !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  let publicKey: string;
  try {
    publicKey = decodeURIComponent(url.username);
  } catch {
    return undefined;
  }
  const lastSegment = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  const projectId = /^\d{1,15}$/.test(lastSegment) ? Number(lastSegment) : undefined;
  if (!isPublicKey(publicKey) || projectId === undefined) return undefined;
  return { publicKey, projectId };
}
