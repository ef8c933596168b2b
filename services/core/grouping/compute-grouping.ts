// Dispatcher step 3 of the path of an event (after normalization and symbolication): the
// grouping hashes that decide which issue an event belongs to. Sentry's newstyle:2023-01-11
// on a reduced scale: the first strategy that yields anything wins, in the order exception
// chain > thread > stack trace > message; a custom fingerprint overrides or salts the result.
// Each hash is the MD5 of the contributing values concatenated without separator, so events
// hash as they would in Sentry. The first hash is the primary one; all are linked to the issue.
import { hash } from 'node:crypto';
import type { ExceptionValue, NormalizedEvent, Stacktrace } from '../event/event.ts';
import { singleThreadStacktrace } from './crash-frame.ts';
import { selectExceptionsOfGroups } from './exception-groups.ts';
import { fingerprintKind, isDefaultEntry, resolveEntry } from './fingerprint.ts';
import { frameValues, hasUrlOrigin, sameCall } from './frame-values.ts';
import { isJavaScriptPlatform } from './in-app.ts';
import { normalizeMessageForGrouping } from './normalize-message.ts';
import { nsErrorValues } from './ns-error.ts';
import { securityReportValues } from './security-report-values.ts';

export type GroupingStrategy =
  'checksum' | 'exception' | 'threads' | 'stacktrace' | 'template' | 'security-report' | 'message' | 'fallback' | 'custom';

export interface Grouping {
  /** Primary first (app before system). Never empty. */
  hashes: string[];
  strategy: GroupingStrategy;
}

type VariantName = 'app' | 'system' | 'default';

interface VariantValues {
  name: VariantName;
  values: string[];
  hasStacktrace: boolean;
}

const FALLBACK_HASH = md5([]);
const MD5_HEX = /^[0-9a-f]{32}$/;

/**
 * MD5 of the values concatenated without separator (hashing them one update at a time is
 * slower). The one-shot `hash` (Node 20.12 and later) costs half of a `createHash` object.
 */
export function md5(values: string[]): string {
  return hash('md5', values.join(''), 'hex');
}

export function computeGrouping(event: NormalizedEvent): Grouping {
  // A legacy client-computed checksum decides alone, as in Sentry: used as the hash when it is
  // one, hashed otherwise.
  if (typeof event.checksum === 'string' && event.checksum) {
    return { hashes: [MD5_HEX.test(event.checksum) ? event.checksum : md5([event.checksum])], strategy: 'checksum' };
  }
  const { strategy, variants } = defaultVariants(event);
  const kind = fingerprintKind(event.fingerprint);
  if (kind === 'custom') {
    return { hashes: [md5(event.fingerprint!.map((entry) => resolveEntry(entry, event)))], strategy: 'custom' };
  }
  if (variants.length === 0) return { hashes: [FALLBACK_HASH], strategy: 'fallback' };
  const hashes = variants.map((variant) =>
    kind === 'hybrid'
      ? md5(event.fingerprint!.flatMap((entry) => (isDefaultEntry(entry) ? variant.values : [resolveEntry(entry, event)])))
      : md5(variant.values),
  );
  return { hashes: [...new Set(hashes)], strategy };
}

function defaultVariants(event: NormalizedEvent): { strategy: GroupingStrategy; variants: VariantValues[] } {
  const { exceptions } = selectExceptionsOfGroups(event.exception?.values ?? [], {
    platform: event.platform,
    sdkVersion: event.sdk?.version,
  });
  if (exceptions.length > 0) {
    const variants = finish([
      chainVariant(exceptions, 'app', event.platform),
      chainVariant(exceptions, 'system', event.platform),
    ]);
    if (variants.length > 0) return { strategy: 'exception', variants };
  }
  const thread = singleThreadStacktrace(event);
  if (thread && exceptions.length === 0) {
    const variants = finish(stacktraceVariants(thread, event.platform));
    if (variants.length > 0) return { strategy: 'threads', variants };
  }
  if (event.stacktrace) {
    const variants = finish(stacktraceVariants(event.stacktrace, event.platform));
    if (variants.length > 0) return { strategy: 'stacktrace', variants };
  }
  const template = templateValues(event);
  if (template) return { strategy: 'template', variants: [{ name: 'default', values: template, hasStacktrace: false }] };
  const report = securityReportValues(event);
  if (report) return { strategy: 'security-report', variants: [{ name: 'default', values: report, hasStacktrace: false }] };
  const raw = event.logentry?.message ?? event.logentry?.formatted;
  if (raw) {
    return {
      strategy: 'message',
      variants: [{ name: 'default', values: [normalizeMessageForGrouping(raw)], hasStacktrace: false }],
    };
  }
  return { strategy: 'fallback', variants: [] };
}

/** A template error (Django and the like): the template's file name and the line that failed. */
function templateValues(event: NormalizedEvent): string[] | undefined {
  const template = event.template as { filename?: unknown; context_line?: unknown } | null | undefined;
  if (!template || typeof template !== 'object') return undefined;
  const values = [template.filename, template.context_line].filter((v): v is string => typeof v === 'string' && v !== '');
  return values.length > 0 ? values : undefined;
}

/**
 * Drops variants that do not contribute; once any variant groups by a stack trace, variants
 * without one are dropped too; a system variant equal to the app variant is dropped.
 */
function finish(candidates: Array<VariantValues | null>): VariantValues[] {
  let variants = candidates.filter((v): v is VariantValues => v !== null && v.values.length > 0);
  if (variants.some((v) => v.hasStacktrace)) variants = variants.filter((v) => v.hasStacktrace);
  const app = variants.find((v) => v.name === 'app');
  const system = variants.find((v) => v.name === 'system');
  // Equal concatenations are equal hashes: no need to hash both to compare them.
  if (app && system && app.values.join('') === system.values.join('')) variants = variants.filter((v) => v !== system);
  return variants;
}

function chainVariant(exceptions: ExceptionValue[], name: 'app' | 'system', platform: string): VariantValues | null {
  const values: string[] = [];
  let hasStacktrace = false;
  for (const exception of exceptions) {
    // An exception without a stack trace only takes part in the app variant.
    if (!exception.stacktrace && name === 'system') continue;
    const stacktrace = exception.stacktrace ? stacktraceValues(exception.stacktrace, name, platform) : null;
    if (stacktrace) {
      values.push(...stacktrace);
      hasStacktrace = true;
    }
    if (exception.type && !exception.mechanism?.synthetic) values.push(exception.type);
    const nsError = nsErrorValues(exception);
    values.push(...nsError);
    // The message varies from event to event; a stack trace, or an NSError's domain and code,
    // identifies the bug better.
    if (!stacktrace && nsError.length === 0 && exception.value) values.push(normalizeMessageForGrouping(exception.value));
  }
  return values.length > 0 ? { name, values, hasStacktrace } : null;
}

function stacktraceVariants(stacktrace: Stacktrace, platform: string): Array<VariantValues | null> {
  return (['app', 'system'] as const).map((name) => {
    const values = stacktraceValues(stacktrace, name, platform);
    return values ? { name, values, hasStacktrace: true } : null;
  });
}

function stacktraceValues(stacktrace: Stacktrace, variant: 'app' | 'system', platform: string): string[] | null {
  const frames = stacktrace.frames;
  if (variant === 'app' && !frames.some((frame) => frame.in_app)) return null;
  const values: string[] = [];
  frames.forEach((frame, index) => {
    if (index > 0 && sameCall(frame, frames[index - 1]!)) return;
    if (variant === 'app' && !frame.in_app) return;
    // A lone JS frame with no function in a URL says nothing about the code (Sentry's shim).
    const framePlatform = frame.platform ?? platform;
    if (frames.length === 1 && isJavaScriptPlatform(framePlatform) && !frame.function && hasUrlOrigin(frame.abs_path, true))
      return;
    const frameContribution = frameValues(frame, platform);
    if (frameContribution) values.push(...frameContribution);
  });
  return values.length > 0 ? values : null;
}
