// The platform names Sentry knows (Relay's protocol; an event without one is `other`). An SDK may
// send any short name, which the stored event keeps; where Errata states a platform as its own
// fact (get_issue_context), only these are repeated, so no SDK can put words there.
const KNOWN_PLATFORMS = new Set([
  'as3',
  'c',
  'cfml',
  'cocoa',
  'csharp',
  'elixir',
  'haskell',
  'go',
  'groovy',
  'java',
  'javascript',
  'native',
  'node',
  'objc',
  'other',
  'perl',
  'php',
  'python',
  'ruby',
]);

/** The platform when Sentry knows it, else `other`. */
export function knownPlatform(platform: string): string {
  return KNOWN_PLATFORMS.has(platform) ? platform : 'other';
}
