// The server's say on which frames are the application's own (Sentry's enhancement base
// all-platforms:2023-01-11, the rules relevant to JS, Python, Go, Dart/Flutter and the JVM; the
// native ones are rule text in native-stack-trace-rules.ts). These rules override the
// SDK's in_app; a frame still undecided afterwards is not in-app. Some frames are also kept out
// of grouping altogether (`-group`): runtime plumbing that says nothing about the bug.
import { eventStacktraces, type Frame, type NormalizedEvent } from '../event/event.ts';

const NOT_APP_PATHS = [
  '/vendor/',
  '/site-packages/',
  '/dist-packages/',
  '/node_modules/',
  '/go/pkg/mod/',
  'https://unpkg.com/',
  'https://cdnjs.cloudflare.com/',
  'https://cdn.jsdelivr.net/',
  'https://esm.run/',
];

const NOISE_MODULES = [/^unpkg\//, /^@babel\//, /^core-js\//, /^regenerator-runtime\//, /^tslib\//, /^newrelic$/];
// Sentry's `/[^/]*newrelic[^/]*/` on the path: a directory whose name holds the word. The paths
// tested start with a slash, so that is the word anywhere before the last slash. Tested as that,
// not as the pattern, which backtracks over the rest of the path at each occurrence of the word
// (a 1 KB path of `newrelic` repeated took 0.2 ms per frame).
const NOISE_DIRECTORY_WORDS = ['newrelic', 'logrocket'];
// Dart and Flutter: the SDK's runtime compiled to JavaScript, and sentry-dart's own packages.
const DART_SDK_JS = /^org-dartlang-sdk:\/\/\//i;
const SENTRY_DART_NOISE = /^package:sentry(?:_flutter|_logging|_dio|_file|_hive|_isar|_sqflite|_drift)?\//i;
const SENTRY_DART_NOT_APP = /^package:sentry_(?:isar|link|firebase_remote_config)\//i;
const FLUTTER_JS_MODULE = /(?:^|\/)packages\/flutter\//i;
// JVM frameworks and runtimes (Sentry's `module:<prefix>.* category=framework` and Kotlin rules)
// are never the application's; Sentry's own Java SDK is not grouped by either.
const JVM_FRAMEWORK_PREFIXES = [
  'akka.',
  'com.fasterxml.',
  'com.microsoft.',
  'com.sun.',
  'feign.',
  'io.opentelemetry.',
  'io.sentry.',
  'jdk.',
  'oauth.',
  'org.apache.',
  'org.glassfish.',
  'org.jboss.',
  'org.jdesktop.',
  'org.postgresql.',
  'org.springframework.',
  'org.web3j.',
  'reactor.core.',
  'scala.',
  'sun.',
  'kotlin.',
  'kotlinx.',
  'io.ktor.',
  'io.netty.',
];
const NODE_PLUMBING = new Set(['runMicrotasks', 'queueMicrotask', 'processTicksAndRejections', 'runNextTicks', 'nextTick']);

export function isJavaScriptPlatform(platform: string | undefined): boolean {
  return platform === 'javascript' || platform === 'node';
}

/** Whether the word is in a directory's name of a path that starts with a slash: before its last slash. */
function inDirectoryName(path: string, word: string): boolean {
  const at = path.indexOf(word);
  return at !== -1 && at + word.length <= path.lastIndexOf('/');
}

/** Sets in_app on every frame of the event; returns nothing, the event is updated in place. */
export function applyInAppRules(event: NormalizedEvent): void {
  for (const stacktrace of eventStacktraces(event)) {
    for (const frame of stacktrace.frames) applyToFrame(frame, frame.platform ?? event.platform);
  }
}

function applyToFrame(frame: Frame, platform: string): void {
  const path = `/${(frame.abs_path ?? frame.filename ?? '').toLowerCase().replace(/\\/g, '/')}`;
  const js = isJavaScriptPlatform(platform);
  const functionName = frame.function ?? frame.raw_function ?? '';
  const noise =
    (frame.module !== undefined && NOISE_MODULES.some((re) => re.test(frame.module!))) ||
    NOISE_DIRECTORY_WORDS.some((word) => inDirectoryName(path, word)) ||
    eitherPath(frame, SENTRY_DART_NOISE) ||
    (js && eitherPath(frame, DART_SDK_JS)) ||
    frame.module?.startsWith('io.sentry.') === true ||
    (platform === 'node' && NODE_PLUMBING.has(functionName)) ||
    (js && functionName === '_callSuper');
  const notApp =
    noise ||
    NOT_APP_PATHS.some((p) => path.includes(p)) ||
    eitherPath(frame, SENTRY_DART_NOT_APP) ||
    (frame.module !== undefined && JVM_FRAMEWORK_PREFIXES.some((prefix) => frame.module!.startsWith(prefix))) ||
    (js && (functionName === 'reportError' || (frame.module !== undefined && FLUTTER_JS_MODULE.test(frame.module))));
  const original = frame.in_app;
  const decided = notApp ? false : (original ?? false);
  if (decided !== original) frame.data = { ...frame.data, orig_in_app: original ?? -1 };
  frame.in_app = decided;
  if (noise) frame.data = { ...frame.data, ignored_for_grouping: true };
}

/** Path rules look at abs_path and filename alike, as Sentry's do. */
function eitherPath(frame: Frame, pattern: RegExp): boolean {
  return (
    (frame.abs_path !== undefined && pattern.test(frame.abs_path)) ||
    (frame.filename !== undefined && pattern.test(frame.filename))
  );
}
