// Sentry's made-up module names for JavaScript frames loaded from URLs
// (sentry/lang/javascript processor.py `generate_module`): `https://x.com/static/js/main.ab12cd34.js`
// becomes `main`. The module then names the frame in culprits and groups it instead of the
// file name, so cache-busting hashes and CDN prefixes do not split issues.
import type { NormalizedEvent, Stacktrace } from './event.ts';

const UNKNOWN_MODULE = '<unknown module>';

const CLEAN_MODULE =
  /^(?:\/|(?:(?:java)?scripts?|js|build|static|node_modules|bower_components|[_.~].*?|v?(?:\d+\.)*\d+|[a-f0-9]{7,8}|[a-f0-9]{32}|[a-f0-9]{40})\/)+|(?:[-.][a-f0-9]{7,}$)/gi;
const VERSION = /^[a-f0-9]{32}|[a-f0-9]{40}$/i;
const URL_PREFIXES = /^(https?|webpack|app):/i;

export function generateModule(source: string | undefined): string {
  if (!source) return UNKNOWN_MODULE;
  let filename = stripExtension(urlPath(source));
  if (filename.endsWith('.min')) filename = filename.slice(0, -4);
  const tokens = filename.split('/');
  const version = tokens.findIndex((token) => VERSION.test(token));
  if (version !== -1) return tokens.slice(version + 1).join('/');
  return filename.replace(CLEAN_MODULE, '') || UNKNOWN_MODULE;
}

/**
 * Gives every JavaScript frame loaded from a URL and lacking a module its generated module.
 * Sentry does this in production (its JavaScript plugin's event preprocessor, before grouping),
 * only for events whose platform is JavaScript or Node; its grouping tests feed events in
 * without it, so their hashes for URL frames have no module.
 */
export function addJavaScriptModules(event: NormalizedEvent): void {
  if (event.platform !== 'javascript' && event.platform !== 'node') return;
  const stacktraces: Stacktrace[] = [];
  for (const exception of event.exception?.values ?? []) if (exception.stacktrace) stacktraces.push(exception.stacktrace);
  if (event.stacktrace) stacktraces.push(event.stacktrace);
  for (const stacktrace of stacktraces) {
    for (const frame of stacktrace.frames) {
      const platform = frame.platform ?? event.platform;
      if (
        (platform === 'javascript' || platform === 'node') &&
        !frame.module &&
        frame.abs_path &&
        URL_PREFIXES.test(frame.abs_path)
      ) {
        frame.module = generateModule(frame.abs_path);
      }
    }
  }
}

/** The path of a URL without its query or fragment (Python's urlsplit(...).path). */
function urlPath(source: string): string {
  const withoutScheme = source.replace(/^[a-z][a-z0-9+.-]*:/i, '');
  const afterAuthority = withoutScheme.startsWith('//') ? withoutScheme.slice(2).replace(/^[^/?#]*/, '') : withoutScheme;
  return afterAuthority.split(/[?#]/)[0]!;
}

/** Python's os.path.splitext: the last dot of the last segment, unless it only leads the name. */
function stripExtension(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return path;
  if (/^\.+$/.test(path.slice(slash + 1, dot))) return path;
  return path.slice(0, dot);
}
