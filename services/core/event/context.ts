// The descriptive interfaces: user, request, contexts, sdk, debug_meta. Kept close to what
// the SDK sent, bounded in depth and size.
import { isIP } from 'node:net';
import {
  boundedJson,
  cappedString,
  isRecord,
  lenientString,
  setOwn,
  storableText,
  valuesOf,
  type JsonRecord,
  type Notes,
} from './coerce.ts';
import type { DebugImage, EventUser } from './event.ts';

/**
 * `inferIp` is the SDK's `sdk.settings.infer_ip`, as Relay reads it: "auto" fills the address the
 * event came from into a user without one (the browser SDK's way since v9, with sendDefaultPii),
 * "never" fills none, and without the setting only an `ip_address` of "{{auto}}" is filled.
 */
export function normalizeUser(raw: unknown, clientIp: string | undefined, inferIp: unknown, notes: Notes): EventUser | undefined {
  if (!isRecord(raw) && raw !== undefined && raw !== null) notes.push({ type: 'invalid_data', name: 'user' });
  const given = isRecord(raw) ? raw : {};
  const user: EventUser = {};
  for (const field of ['id', 'email', 'username', 'name', 'segment'] as const) {
    const value = cappedString(given[field], 256, `user.${field}`, notes);
    if (value) user[field] = value;
  }
  const ip = lenientString(given.ip_address);
  if (ip === '{{auto}}' || (ip === undefined && inferIp === 'auto')) {
    // Checked as a sent one is: behind proxies it is what X-Forwarded-For said (ip:port, or a
    // client inside the cluster writing the header itself).
    if (clientIp && isIpAddress(clientIp) && inferIp !== 'never') user.ip_address = clientIp;
  } else if (ip && isIpAddress(ip)) {
    user.ip_address = ip;
  } else if (ip) {
    notes.push({ type: 'invalid_data', name: 'user.ip_address', value: ip.slice(0, 64) });
  }
  if (isRecord(given.geo)) user.geo = boundedJson(given.geo, 2);
  if (isRecord(given.data)) user.data = boundedJson(given.data, 4);
  return Object.keys(user).length > 0 ? user : undefined;
}

/** An IPv4 or IPv6 address as written (not "ip:port", which once passed for IPv6). */
function isIpAddress(text: string): boolean {
  return isIP(text) !== 0;
}

/** A stable key for counting distinct affected users, as Sentry's `sentry:user` tag. */
export function userKey(user: EventUser | undefined): string | undefined {
  if (!user) return undefined;
  if (user.id) return `id:${user.id}`;
  if (user.email) return `email:${user.email}`;
  if (user.username) return `username:${user.username}`;
  if (user.ip_address) return `ip:${user.ip_address}`;
  return undefined;
}

export function normalizeRequest(raw: unknown): JsonRecord | undefined {
  if (!isRecord(raw)) return undefined;
  const request: JsonRecord = {};
  for (const field of ['url', 'method', 'fragment', 'inferred_content_type'] as const) {
    const value = lenientString(raw[field]);
    if (value) request[field] = value.slice(0, 2048);
  }
  for (const field of ['query_string', 'data', 'cookies', 'headers', 'env'] as const) {
    if (raw[field] !== undefined && raw[field] !== null) request[field] = boundedJson(raw[field], 4, 4096, 100);
  }
  return Object.keys(request).length > 0 ? request : undefined;
}

export function normalizeContexts(raw: unknown, notes: Notes): Record<string, JsonRecord> {
  const contexts: Record<string, JsonRecord> = {};
  if (!isRecord(raw)) {
    if (raw !== undefined && raw !== null) notes.push({ type: 'invalid_data', name: 'contexts' });
    return contexts;
  }
  for (const [alias, value] of Object.entries(raw).slice(0, 100)) {
    if (!isRecord(value)) {
      notes.push({ type: 'invalid_data', name: `contexts.${alias}` });
      continue;
    }
    const context = boundedJson(value, 5, 8192, 200) as JsonRecord;
    // The type may be left out when the alias already names it ("os": {...}).
    if (typeof context.type !== 'string') context.type = alias;
    setOwn(contexts, alias, context);
  }
  const trace = contexts.trace;
  if (trace && typeof trace.trace_id === 'string') trace.trace_id = trace.trace_id.toLowerCase().replace(/-/g, '');
  return contexts;
}

export function normalizeSdk(raw: unknown): { name?: string; version?: string; [key: string]: unknown } | undefined {
  if (!isRecord(raw)) return undefined;
  const sdk: { name?: string; version?: string; [key: string]: unknown } = {};
  const name = lenientString(raw.name);
  if (name) sdk.name = name.slice(0, 128);
  const version = lenientString(raw.version);
  if (version) sdk.version = version.slice(0, 128);
  if (Array.isArray(raw.integrations)) sdk.integrations = boundedJson(raw.integrations, 2, 128, 100);
  if (Array.isArray(raw.packages)) sdk.packages = boundedJson(raw.packages, 3, 256, 50);
  return Object.keys(sdk).length > 0 ? sdk : undefined;
}

/** The SDK's `sdk.settings.infer_ip` ("auto", "never"), as sent; not kept in the event. */
export function inferIpSetting(sdk: unknown): unknown {
  return isRecord(sdk) && isRecord(sdk.settings) ? sdk.settings.infer_ip : undefined;
}

export function normalizeDebugMeta(raw: unknown): { images: DebugImage[] } | undefined {
  if (!isRecord(raw)) return undefined;
  const images: DebugImage[] = [];
  for (const image of valuesOf(raw.images).slice(0, 500)) {
    if (!isRecord(image) || typeof image.type !== 'string') continue;
    images.push(boundedJson(image, 3, 2048, 50) as DebugImage);
  }
  return images.length > 0 ? { images } : undefined;
}

export function normalizeFingerprint(raw: unknown, notes: Notes): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    notes.push({ type: 'invalid_data', name: 'fingerprint' });
    return undefined;
  }
  const parts: string[] = [];
  for (const part of raw.slice(0, 50)) {
    const text = fingerprintPart(part);
    if (text === undefined) {
      notes.push({ type: 'invalid_data', name: 'fingerprint' });
      return undefined;
    }
    parts.push(text.slice(0, 512));
  }
  return parts.length > 0 ? parts : undefined;
}

/**
 * A fingerprint entry as Relay writes it: numbers truncated to integers (19.99 and 19.5 are one
 * "19"), booleans as Python writes them ("True"), and a number beyond 2^53 not a value at all.
 */
function fingerprintPart(part: unknown): string | undefined {
  if (typeof part === 'boolean') return part ? 'True' : 'False';
  if (typeof part === 'number') return Math.abs(part) < 2 ** 53 ? String(Math.trunc(part)) : undefined;
  return lenientString(part);
}

export function normalizeModules(raw: unknown): Record<string, string> | undefined {
  if (!isRecord(raw)) return undefined;
  const modules: Record<string, string> = {};
  for (const [name, version] of Object.entries(raw).slice(0, 2000)) {
    const text = lenientString(version);
    if (text !== undefined) setOwn(modules, storableText(name.slice(0, 256)), text.slice(0, 128));
  }
  return modules;
}
