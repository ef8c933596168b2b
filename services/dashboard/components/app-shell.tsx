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
  organization: string;
  /** The section the page belongs to, if any. */
  current?: Section;
  children: ComponentChildren;
}

export function AppShell({ title, assets, organization, current, children }: AppShellProps) {
  const base = `/organizations/${encodeURIComponent(organization)}`;
  return (
    <Document title={title} assets={assets}>
      <div class="app">
        <header class="topbar">
          <a class="brand" href="/">
            <Logo />
            <span>Errata</span>
          </a>
          <span class="topbar-organization" title="Organization">
            {organization}
          </span>
        </header>
        <nav class="sidebar" aria-label="Main">
          <ul>
            {SECTIONS.map(({ section, label }) => (
              <li key={section}>
                <a href={`${base}/${section}`} aria-current={section === current ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" class="content" tabIndex={-1}>
          {children}
        </main>
      </div>
    </Document>
  );
}
