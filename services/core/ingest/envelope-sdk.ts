// The envelope header's `sdk`, as ingest carries it to the dispatcher (which uses it only for
// an event whose payload names no SDK). The header is the client's to fill, so it is cut down
// to what an event shows before anything is queued: name and version as short strings, and
// integrations and packages while the whole stays within a few KiB. Anything else is dropped.
import { isRecord, lenientString } from '../event/coerce.ts';

export interface EnvelopeSdk {
  name?: string;
  version?: string;
  integrations?: string[];
  packages?: Array<{ name: string; version?: string }>;
}

/** Encoded size the carried value never exceeds. */
export const MAX_ENVELOPE_SDK_BYTES = 4096;

export function envelopeSdk(raw: unknown): EnvelopeSdk | undefined {
  if (!isRecord(raw)) return undefined;
  const sdk: EnvelopeSdk = {};
  const name = shortText(raw.name, 128);
  if (name) sdk.name = name;
  const version = shortText(raw.version, 128);
  if (version) sdk.version = version;
  const integrations = Array.isArray(raw.integrations)
    ? raw.integrations.slice(0, 100).flatMap((item) => shortText(item, 64) ?? [])
    : [];
  if (integrations.length > 0) sdk.integrations = integrations;
  const packages = Array.isArray(raw.packages) ? raw.packages.slice(0, 50).flatMap((item) => sdkPackage(item) ?? []) : [];
  if (packages.length > 0) sdk.packages = packages;
  // Lists go first, then everything: the cap holds whatever the lists held.
  if (encodedBytes(sdk) > MAX_ENVELOPE_SDK_BYTES) delete sdk.packages;
  if (encodedBytes(sdk) > MAX_ENVELOPE_SDK_BYTES) delete sdk.integrations;
  return Object.keys(sdk).length > 0 ? sdk : undefined;
}

function sdkPackage(raw: unknown): { name: string; version?: string } | undefined {
  if (!isRecord(raw)) return undefined;
  const name = shortText(raw.name, 128);
  if (!name) return undefined;
  const version = shortText(raw.version, 64);
  return version ? { name, version } : { name };
}

function shortText(value: unknown, max: number): string | undefined {
  const text = lenientString(value);
  return text ? text.slice(0, max) : undefined;
}

function encodedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}
