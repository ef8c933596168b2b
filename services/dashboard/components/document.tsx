// The page every dashboard page is: the head with the hashed script and stylesheet, and the
// body it is given. The htmx-config meta tag turns off the indicator stylesheet htmx would
// inject (style.css has those rules), so that nothing styles the page but our own file.
import type { ComponentChildren } from 'preact';
import type { Theme } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';

// A data: URL, which img-src allows, so that browsers do not ask for /favicon.ico and log a 404.
const FAVICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#5b5bd6"/><path d="M10 9h12v3h-8.5v3H21v3h-7.5v3H22v3H10z" fill="#fff"/></svg>',
  );

interface DocumentProps {
  title: string;
  assets: AssetSet;
  /** The session's CSRF token, read by assets/client.ts for htmx's requests. */
  csrf?: string | undefined;
  /** The person's theme; `system` (or nobody signed in) follows the browser's preference. */
  theme?: Theme | undefined;
  children: ComponentChildren;
}

export function Document({ title, assets, csrf, theme, children }: DocumentProps) {
  const fixed = theme === 'light' || theme === 'dark' ? theme : undefined;
  return (
    <html lang="en" data-theme={fixed}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content={fixed ?? 'light dark'} />
        {csrf && <meta name="errata-csrf" content={csrf} />}
        <meta name="htmx-config" content='{"includeIndicatorCSS":false}' />
        <title>{`${title} · Errata`}</title>
        <link rel="icon" href={FAVICON} />
        <link rel="stylesheet" href={assets.style.url} />
        <script src={assets.script.url} defer />
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        {children}
      </body>
    </html>
  );
}

/** The mark beside the product's name: decorative, the name beside it says what it is. */
export function Logo() {
  return (
    <svg class="logo" viewBox="0 0 32 32" width="24" height="24" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" class="logo-tile" />
      <path d="M10 9h12v3h-8.5v3H21v3h-7.5v3H22v3H10z" class="logo-letter" />
    </svg>
  );
}
