// How one matcher of a grouping rule tests one value of an event or frame. Paths and packages
// match as paths (case-insensitive, `**`); level and family ignore case; messages and
// exception values ignore case as Sentry's do; in fingerprint rules names (type, function,
// module) are exact globs, while stack-trace rules ignore case throughout, as Sentry's enhancer
// (getsentry/ophio) compiles every pattern.
import type { ExceptionValue, Frame } from '../../event/event.ts';
import { globMatches } from './glob.ts';
import type { Matcher } from './rule-scanner.ts';

const NATIVE_PLATFORMS = new Set(['native', 'c', 'cocoa', 'objc', 'swift']);

/** Sentry's platform family: javascript (browser and node), native, or other. */
export function platformFamily(platform: string): string {
  if (platform === 'javascript' || platform === 'node') return 'javascript';
  return NATIVE_PLATFORMS.has(platform) ? 'native' : 'other';
}

/** Whether the matcher's pattern (ignoring `!`) matches the value; absent values never do. */
function patternMatches(key: string, pattern: string, value: string | boolean | undefined, anyCase: boolean): boolean {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return parseBoolean(pattern) === value;
  switch (key) {
    case 'path':
    case 'package':
      return globMatches(pattern, value, { path: true, ignoreCase: true });
    case 'family':
      return pattern
        .toLowerCase()
        .split(',')
        .some((family) => family === 'all' || family === value);
    case 'level':
    case 'value':
    case 'message':
      return globMatches(pattern, value, { path: false, ignoreCase: true });
    default:
      return globMatches(pattern, value, { path: false, ignoreCase: anyCase });
  }
}

function parseBoolean(pattern: string): boolean | undefined {
  const lower = pattern.toLowerCase();
  if (['1', 'yes', 'true'].includes(lower)) return true;
  if (['0', 'no', 'false'].includes(lower)) return false;
  return undefined;
}

/** The values of a frame-level key, any of which may match (a path is its abs_path or filename). */
export function frameValuesFor(key: string, frame: Frame, platform: string): Array<string | boolean | undefined> {
  switch (key) {
    case 'path':
      return [frame.abs_path, frame.filename];
    case 'module':
      return [frame.module];
    case 'function':
      return [frame.function ?? frame.raw_function];
    case 'package':
      return [frame.package, frame.package?.split(/[/\\]/).pop()];
    case 'app':
      return [frame.in_app ?? false];
    case 'family':
      return [platformFamily(frame.platform ?? platform)];
    case 'category':
      return [typeof frame.data?.category === 'string' ? frame.data.category : undefined];
    default:
      return [];
  }
}

/** The values of an exception-level key. */
export function exceptionValuesFor(key: string, exception: ExceptionValue | undefined): Array<string | undefined> {
  if (!exception) return [];
  switch (key) {
    case 'type':
      return [exception.type];
    case 'value':
      return [exception.value];
    case 'mechanism':
      return [exception.mechanism?.type];
    default:
      return [];
  }
}

/**
 * Whether a matcher holds over candidate values: any matches, or (negated) none does.
 * `anyCase` makes names match whatever their case (stack-trace rules).
 */
export function matcherHolds(matcher: Matcher, values: ReadonlyArray<string | boolean | undefined>, anyCase = false): boolean {
  const any = values.some((value) => patternMatches(matcher.key, matcher.pattern, value, anyCase));
  return matcher.negated ? !any : any;
}
