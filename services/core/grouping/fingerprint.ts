// Custom fingerprints: an SDK may send `fingerprint: ["{{ default }}", "{{ tags.region }}"]`.
// `{{ default }}` stands for the values default grouping would use; other variables resolve
// against the event (Sentry's fingerprinting/utils.py); anything else is taken literally.
import { eventTag } from './event-tag.ts';
import type { NormalizedEvent } from '../event/event.ts';
import { eventMessage, primaryException } from '../event/event.ts';
import { fingerprintCrashFrame } from './crash-frame.ts';

const VARIABLE = /^\{\{\s*(\S+)\s*\}\}$/;

type FingerprintKind = 'default' | 'hybrid' | 'custom';

export function isDefaultEntry(entry: string): boolean {
  return VARIABLE.exec(entry)?.[1] === 'default';
}

export function fingerprintKind(fingerprint: string[] | undefined): FingerprintKind {
  if (!fingerprint || (fingerprint.length === 1 && isDefaultEntry(fingerprint[0]!))) return 'default';
  return fingerprint.some(isDefaultEntry) ? 'hybrid' : 'custom';
}

/** The entry's value: a resolved variable, or the entry itself when it is not one we know. */
export function resolveEntry(entry: string, event: NormalizedEvent): string {
  const name = VARIABLE.exec(entry)?.[1];
  if (!name) return entry;
  const exception = primaryException(event);
  const frame = fingerprintCrashFrame(event);
  switch (name) {
    case 'transaction':
      return event.transaction || '<no-transaction>';
    case 'message':
      return eventMessage(event) || exception?.value || '<no-message>';
    case 'type':
    case 'error.type':
      return exception?.type || '<no-type>';
    case 'value':
    case 'error.value':
      return exception?.value || '<no-value>';
    case 'function':
    case 'stack.function':
      return frame?.function || '<no-function>';
    case 'path':
    case 'stack.abs_path':
      return frame?.abs_path || frame?.filename || '<no-abs-path>';
    case 'stack.filename':
      return frame?.filename || frame?.abs_path || '<no-filename>';
    case 'module':
    case 'stack.module':
      return frame?.module || '<no-module>';
    case 'package':
    case 'stack.package':
      return frame?.package?.split(/[/\\]/).pop() || '<no-package>';
    case 'level':
      return event.level || '<no-level>';
    case 'logger':
      return event.logger || '<no-logger>';
    default:
      if (name.startsWith('tags.')) {
        const tag = name.slice(5);
        return eventTag(event, tag) ?? `<no-value-for-tag-${tag}>`;
      }
      return entry;
  }
}
