// The frame of every page inside an organization: the top bar, the left navigation (a labelled
// landmark, its current page marked for screen readers) and the main landmark the skip link
// jumps to.
import type { ComponentChildren } from 'preact';
import type { AssetSet } from '../assets/asset-store.ts';
import { Document, Logo } from './document.tsx';

type Section = 'issues' | 'projects' | 'logs' | 'releases' | 'settings';

const SECTIONS: readonly { section: Section; label: string }[] = [
  { section: 'issues', label: 'Issues' },
  { section: 'projects', label: 'Projects' },
  { section: 'logs', label: 'Logs' },
  { section: 'releases', label: 'Releases' },
  { section: 'settings', label: 'Settings' },
];

interface AppShellProps {
  title: string;
  assets: AssetSet;
  /** Absent when the address names none (/organizations): then there is nothing to navigate. */
  organization?: string | undefined;
  /** The section the page belongs to, if any. */
  current?: Section;
  children: ComponentChildren;
}

export function AppShell({ title, assets, organization, current, children }: AppShellProps) {
  return (
    <Document title={title} assets={assets}>
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
        </header>
        <nav class="sidebar" aria-label="Main">
          {organization && (
            <ul>
              {SECTIONS.map(({ section, label }) => (
                <li key={section}>
                  <a
                    href={`/organizations/${encodeURIComponent(organization)}/${section}`}
                    aria-current={section === current ? 'page' : undefined}
                  >
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </nav>
        <main id="main" class="content" tabIndex={-1}>
          {children}
        </main>
      </div>
    </Document>
  );
}
