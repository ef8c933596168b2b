// Frame paths as an agent finds them in its checkout, for get_issue_context's compact stack.
// SDKs send where the code ran: `/srv/app/src/cart.ts`, `webpack://shop/./src/cart.ts`,
// `app:///src/cart.js`, `file:///C:/app/src/cart.ts`, `https://cdn.x.com/static/js/main.js`.
//
// The rule, deliberately simple so an agent can undo it in its head:
// 1. Drop what only names where the code was served from: `file://` (keeping the path after
//    it), any other `scheme://authority/` (a webpack namespace, `app://`, a web origin), a
//    leading `./` or `../` run; backslashes become slashes.
// 2. Drop the longest directory prefix that every in-app absolute path shares: the deploy
//    root (`/srv/app/`, `/tmp/build/`) differs per machine, the rest is the repository's
//    layout. With a single in-app directory this leaves the file name alone (the rule cannot
//    tell the repository's root from the deploy root then); the raw event keeps the full path.
// Library frames keep their paths (after step 1); they are summarized by package anyway.
import type { Frame } from './event.ts';

/** The path a frame was reported with, before any rewriting. */
export function framePath(frame: Frame): string {
  return frame.filename ?? frame.abs_path ?? '';
}

/** Step 1 of the rule above: the path without scheme, authority and leading relative steps. */
export function withoutServingPrefix(path: string): string {
  let p = path.replaceAll('\\', '/');
  if (/^file:\/\//i.test(p)) {
    p = p.slice('file://'.length);
    // file:///C:/app → /C:/app → C:/app
    if (/^\/[A-Za-z]:\//.test(p)) p = p.slice(1);
  } else {
    p = p.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*\/?/i, '');
  }
  return p.replace(/^(?:\.\.?\/)+/, '');
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:\//.test(path);
}

/** The directory prefix (ending in `/`) every given absolute path starts with; '' when none. */
function commonDirectory(paths: string[]): string {
  if (paths.length === 0) return '';
  let prefix = paths[0]!.slice(0, paths[0]!.lastIndexOf('/') + 1);
  for (const path of paths.slice(1)) {
    while (prefix && !path.startsWith(prefix)) {
      const cut = prefix.length < 2 ? -1 : prefix.lastIndexOf('/', prefix.length - 2);
      prefix = prefix.slice(0, cut + 1);
    }
  }
  // `/` alone is no deploy root worth naming.
  return prefix.length > 1 ? prefix : '';
}

/**
 * The repository-relative path of each frame, by the rule above, given every frame of the
 * event (the prefix is shared across the whole exception chain, so one file reads the same in
 * every exception). `isInApp` says which frames are the application's own.
 */
export function repositoryPaths(frames: Frame[], isInApp: (frame: Frame) => boolean): (frame: Frame) => string {
  const inAppAbsolute = frames
    .filter(isInApp)
    .map((frame) => withoutServingPrefix(framePath(frame)))
    .filter(isAbsolute);
  const root = commonDirectory(inAppAbsolute);
  return (frame) => {
    const path = withoutServingPrefix(framePath(frame));
    return root && path.startsWith(root) && path.length > root.length ? path.slice(root.length) : path;
  };
}
