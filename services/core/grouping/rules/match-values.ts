// How one matcher of a grouping rule tests one value of an event or frame. Paths and packages
// match as paths (case-insensitive, `**`); level and family ignore case; messages and
// exception values ignore case as Sentry's do; in fingerprint rules names (type, function,
// module) are exact globs, while stack-trace rules ignore case throughout, as Sentry's enhancer
// (getsentry/ophio) compiles every pattern.
import type { ExceptionValue, Frame } from '../../event/event.ts';
import { globTester } from './glob.ts';
import type { Matcher } from './rule-scanner.ts';

const NATIVE_PLATFORMS = new Set(['native', 'c', 'cocoa', 'objc', 'swift']);

/** Sentry's platform family: javascript (browser and node), native, or other. */
export function platformFamily(platform: string): string {
  if (platform === 'javascript' || platform === 'node') return 'javascript';
  return NATIVE_PLATFORMS.has(platform) ? 'native' : 'other';
}

type Tester = (value: string | boolean) => boolean;

// A matcher is compiled once into a tester; grouping rules run over every frame of every event.
const exactTesters = new WeakMap<Matcher, Tester>();
const anyCaseTesters = new WeakMap<Matcher, Tester>();

function testerFor(matcher: Matcher, anyCase: boolean): Tester {
  const cache = anyCase ? anyCaseTesters : exactTesters;
  let tester = cache.get(matcher);
  if (!tester) {
    tester = compileTester(matcher.key, matcher.pattern, anyCase);
    cache.set(matcher, tester);
  }
  return tester;
}

/** Whether the pattern (ignoring `!`) matches a value; booleans match yes/no patterns. */
function compileTester(key: string, pattern: string, anyCase: boolean): Tester {
  const expected = parseBoolean(pattern);
  const onStrings =
    (test: (value: string) => boolean): Tester =>
    (value) =>
      typeof value === 'boolean' ? expected === value : test(value);
  switch (key) {
    case 'path':
    case 'package':
      return onStrings(globTester(pattern, { path: true, ignoreCase: true }));
    case 'family': {
      const families = pattern.toLowerCase().split(',');
      return onStrings((value) => families.some((family) => family === 'all' || family === value));
    }
    case 'level':
    case 'value':
    case 'message':
      return onStrings(globTester(pattern, { path: false, ignoreCase: true }));
    default:
      return onStrings(globTester(pattern, { path: false, ignoreCase: anyCase }));
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

/** A matcher compiled into a test over candidate values (for rules run over many frames). */
export function compiledMatcher(
  matcher: Matcher,
  anyCase: boolean,
): (values: ReadonlyArray<string | boolean | undefined>) => boolean {
  const tester = testerFor(matcher, anyCase);
  return (values) => {
    let any = false;
    for (const value of values) {
      if (value !== undefined && tester(value)) {
        any = true;
        break;
      }
    }
    return matcher.negated ? !any : any;
  };
}

/** Whether a fingerprint rule's matcher holds over candidate values: any matches, or (negated) none does. */
export function matcherHolds(matcher: Matcher, values: ReadonlyArray<string | boolean | undefined>): boolean {
  return compiledMatcher(matcher, false)(values);
}
