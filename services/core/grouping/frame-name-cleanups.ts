// Parts of frame names that compilers, template engines and proxies generate anew on each build
// or each run; Sentry's frame:v1 strategy replaces or ignores them so the same code groups the
// same. Written from the names Sentry's grouping tests give and expect:
//   com.example.Controller$$EnhancerBySpringCGLIB$$1ebdddb0 -> ...$$EnhancerBySpringCGLIB$$<auto>
//   _foo_html_erb__3327151541118998292_70361296749460      -> _foo_html_erb
import { trimNativeFunctionName } from './native-function-name.ts';

// Java: proxies and accessors the runtime or a framework generates, numbered or hashed.
const JAVA_GENERATED_MARKERS: Array<[RegExp, string]> = [
  // Reflection (OpenJDK): GeneratedConstructorAccessor12, GeneratedSerializationConstructorAccessor3.
  [/(sun\.reflect\.Generated(?:Serialization)?ConstructorAccessor)\d+/g, '$1<auto>'],
  // CGLIB and Guice: $$EnhancerBySpringCGLIB$$1ebdddb0, $$EnhancerByGuice$$ae46b1bf, $$FastClassByGuice$$...
  // Sentry writes `\$\$\w+?(?:CGLIB|By\w+?)\$\$`: its two lazy runs try every split of a long word
  // without `$$` after it, quadratic in an SDK's module name (0.18 ms for `$$` and 511 `By`, each
  // frame, each variant). The lookahead first asks for the word, `$$` and a hex digit after it,
  // so the split that follows is found in one pass; the matches are the same.
  [/(\$\$(?=\w+\$\$[a-fA-F0-9])(?:\w+CGLIB|\w+By\w+)\$\$)[a-fA-F0-9]+(?:_\d+)?/g, '$1<auto>'],
  // Hibernate: User$HibernateProxy$oRWxjAWT.
  [/(\$HibernateProxy\$)\w+/g, '$1<auto>'],
  // Javassist: EntriesResource_$$_javassist_74, EntriesResource_$$_javassist_seam_74.
  [/(\$\$_javassist)(?:_seam)?(?:_\d+)?/g, '$1<auto>'],
  // Clojure anonymous functions: myapp.core$fn__12345.
  [/(\$fn__)\d+/g, '$1<auto>'],
];
const JAVA_METHOD_ACCESSORS = ['sun.reflect.GeneratedMethodAccessor', 'jdk.internal.reflect.GeneratedMethodAccessor'];
const JAVASSIST_FILE = /(\$\$_javassist)(?:_seam)?(?:_\d+)?/g;
// Ruby: ERB templates compile to methods suffixed with two generated numbers.
const RUBY_ERB_SUFFIX = /__\d{4,}_\d{4,}$/;
const NATIVE_UNKNOWN = new Set(['<redacted>', '<unknown>']);
const NATIVE_PLATFORMS = new Set(['native', 'cocoa', 'objc', 'swift', 'c']);

function isNativePlatform(platform: string): boolean {
  return NATIVE_PLATFORMS.has(platform);
}

/**
 * The name a frame's function groups by before per-platform clean-ups: `function`, else
 * `raw_function`; C# prefers the raw name (its SDKs once sent untrimmed names in `function`);
 * a native `function` with no raw name beside it is trimmed to the bare name.
 */
export function frameFunctionName(frame: { function?: string; raw_function?: string }, platform: string): string | undefined {
  if (platform === 'csharp') return frame.raw_function ?? frame.function;
  if (frame.function && !frame.raw_function && isNativePlatform(platform)) return trimNativeFunctionName(frame.function);
  return frame.function ?? frame.raw_function;
}

/** The module as it groups, or undefined when it does not contribute. */
export function groupingModule(module: string, platform: string): string | undefined {
  if (platform !== 'java') return module;
  if (module.includes('$$Lambda$')) return undefined;
  const accessor = JAVA_METHOD_ACCESSORS.find((prefix) => module.startsWith(prefix));
  if (accessor) return accessor;
  return JAVA_GENERATED_MARKERS.reduce((name, [pattern, replacement]) => name.replace(pattern, replacement), module);
}

/** The (already lowercased) basename as it groups. */
export function groupingFilename(basename: string, platform: string): string {
  return platform === 'java' ? basename.replace(JAVASSIST_FILE, '$1<auto>') : basename;
}

/** The function name as it groups, for platforms other than JavaScript (whose rules are frame-values.ts'); undefined: it does not contribute. */
export function groupingFunction(name: string, platform: string): string | undefined {
  switch (platform) {
    case 'ruby':
      return name.startsWith('block ') ? 'block' : name.replace(RUBY_ERB_SUFFIX, '');
    case 'php':
      // Anonymous classes and closures are named after where they were declared.
      // PHP writes a NUL after `class@anonymous`; normalization stores it as U+FFFD (Postgres text holds no NUL).
      if (name.startsWith('[Anonymous') || /^class@anonymous[\u0000\uFFFD]/.test(name)) return undefined;
      return name.startsWith('class@anonymous') && name.includes('::') ? name.slice(name.lastIndexOf('::') + 2) : name;
    case 'java':
      return name.startsWith('lambda$') ? undefined : name;
    default:
      return isNativePlatform(platform) && NATIVE_UNKNOWN.has(name) ? undefined : name;
  }
}
