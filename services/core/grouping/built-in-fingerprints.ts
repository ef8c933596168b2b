// Sentry's built-in fingerprint rules (fingerprinting base javascript@2024-02-02 of the grouping
// config newstyle:2023-01-11). They group failures that look different every time but are one
// problem: a chunk that failed to load (each names another chunk and URL) is one issue; a
// hydration mismatch is one issue per transaction (page). Like a server-side rule in Sentry, a
// match replaces whatever fingerprint the SDK sent, even `{{ default }}` or a hybrid one.
//
// A project's own fingerprint rules come first in Sentry: where one matches, these do not
// apply. They run after this step and replace the fingerprint it set, which comes to the same.
import type { NormalizedEvent } from '../event/event.ts';
import { isJavaScriptPlatform } from './in-app.ts';

const CHUNK_LOAD_ERROR = 'ChunkLoadError';

const HYDRATION_MESSAGES = new Set(
  [
    'Hydration failed because the initial UI does not match what was rendered on the server.',
    'The server could not finish this Suspense boundary, likely due to an error during server rendering. Switched to client rendering.',
    'There was an error while hydrating this Suspense boundary. Switched to client rendering.',
    'There was an error while hydrating. Because the error happened outside of a Suspense boundary, the entire root will switch to client rendering.',
    'Text content does not match server-rendered HTML.',
  ].map((message) => message.toLowerCase()),
);

/** Sets the event's fingerprint when a built-in rule matches. */
export function applyBuiltInFingerprintRules(event: NormalizedEvent): void {
  const fingerprint = builtInFingerprint(event);
  if (fingerprint) event.fingerprint = fingerprint;
}

function builtInFingerprint(event: NormalizedEvent): string[] | undefined {
  // `family:javascript`: the platform's behaviour family, browser and Node alike.
  if (!isJavaScriptPlatform(event.platform)) return undefined;
  const exceptions = event.exception?.values ?? [];
  // error.type:"ChunkLoadError" (case matters) or error.value:"ChunkLoadError*" (it does not).
  if (
    exceptions.some(
      (exception) =>
        exception.type === CHUNK_LOAD_ERROR || exception.value?.trim().toLowerCase().startsWith(CHUNK_LOAD_ERROR.toLowerCase()),
    )
  ) {
    return ['chunkloaderror'];
  }
  // message:"..." matches the formatted message or any exception's value; the rule needs a
  // non-empty transaction tag (Sentry tags every event with its transaction), which its
  // fingerprint, `{{ tags.transaction }}`, names.
  const transaction = (event.tags.transaction ?? event.transaction)?.trim();
  if (!transaction) return undefined;
  const messages = [event.logentry?.formatted, ...exceptions.map((exception) => exception.value)];
  if (messages.some((message) => message !== undefined && HYDRATION_MESSAGES.has(message.trim().toLowerCase()))) {
    return ['hydrationerror', transaction];
  }
  return undefined;
}
