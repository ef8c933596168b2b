// The frame of every page for a signed-in person: the top bar (the organization, the person's
// account), the left navigation (a labelled landmark, its current page marked for screen
// readers) and the main landmark the skip link jumps to.
import type { ComponentChildren } from 'preact';
import { can, type Capability } from '../../core/auth/capabilities.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { Document, Logo } from './document.tsx';

// Logs and Releases join when their pages exist (Dashboard, part 2).
export type Section = 'issues' | 'whats-new' | 'logs' | 'projects' | 'alert-channels' | 'settings';

/** A section with a capability is listed only for roles that have it (its pages refuse the others). */
const SECTIONS: readonly { section: Section; label: string; needs?: Capability }[] = [
  { section: 'issues', label: 'Issues' },
  { section: 'whats-new', label: "What's new", needs: 'read' },
  { section: 'logs', label: 'Logs', needs: 'read' },
  { section: 'projects', label: 'Projects' },
  { section: 'alert-channels', label: 'Alert channels', needs: 'alerts' },
  // Owners and admins: every role with a settings page has this (components/settings-nav.tsx).
  { section: 'settings', label: 'Settings', needs: 'agent_activity' },
];

interface AppShellProps {
  title: string;
  assets: AssetSet;
  /** Absent when the address names none (/organizations, /account): the navigation then leads to /organizations. */
  organization?: string | undefined;
  /** The section the page belongs to, if any. */
  current?: Section;
  /** The signed-in person, named in the top bar with a link to their account. */
  viewer?: (Pick<User, 'name' | 'theme'> & Partial<Pick<User, 'role'>>) | undefined;
  /** The session's CSRF token, for htmx's requests (assets/client.ts sends it as a header). */
  csrf?: string | undefined;
  children: ComponentChildren;
}

export function AppShell({ title, assets, organization, current, viewer, csrf, children }: AppShellProps) {
  const base = organization && `/organizations/${encodeURIComponent(organization)}`;
  return (
    <Document title={title} assets={assets} csrf={csrf} theme={viewer?.theme}>
      <div class="app">
        <header class="topbar">
          <a class="brand" href="/">
            <Logo />
            <span>Errata</span>
          </a>
          {organization && (
            <span class="topbar-organization" title="Organization">
              {organization}
            </span>
          )}
          {viewer && (
            <a class="topbar-account" href="/account">
              {viewer.name}
            </a>
          )}
        </header>
        <nav class="sidebar" aria-label="Main">
          <ul>
            {base ? (
              SECTIONS.filter(({ needs }) => !needs || (viewer?.role && can({ kind: 'user', role: viewer.role }, needs))).map(
                ({ section, label }) => (
                  <li key={section}>
                    <a href={`${base}/${section}`} aria-current={section === current ? 'page' : undefined}>
                      {label}
                    </a>
                  </li>
                ),
              )
            ) : (
              <li>
                <a href="/organizations">Issues</a>
              </li>
            )}
          </ul>
        </nav>
        <main id="main" class="content" tabIndex={-1}>
          {children}
        </main>
      </div>
    </Document>
  );
}
