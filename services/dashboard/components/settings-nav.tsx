// The settings pages' own navigation, above each of them: one line per page, listed only for
// the roles its capability allows (its routes refuse the others). The Settings section of the
// app shell leads to the first one the viewer may use (routes/settings-routes.ts).
import { can, type Capability, type HumanRole } from '../../core/auth/capabilities.ts';

type SettingsPage = 'agent-tokens' | 'agent-activity' | 'members';

const SETTINGS_PAGES: readonly { page: SettingsPage; label: string; needs: Capability }[] = [
  { page: 'agent-tokens', label: 'Agent tokens', needs: 'agent_tokens' },
  { page: 'agent-activity', label: 'Agent activity', needs: 'agent_activity' },
  { page: 'members', label: 'Members', needs: 'members' },
];

function pagesFor(role: HumanRole) {
  return SETTINGS_PAGES.filter(({ needs }) => can({ kind: 'user', role }, needs));
}

/** The settings page /settings leads a person of this role to; undefined when they may use none. */
export function firstSettingsPage(role: HumanRole): SettingsPage | undefined {
  return pagesFor(role)[0]?.page;
}

interface SettingsNavProps {
  /** `href('settings', page)` of the organization. */
  href: (...segments: string[]) => string;
  role: HumanRole;
  current: SettingsPage;
}

export function SettingsNav({ href, role, current }: SettingsNavProps) {
  return (
    <nav class="settings-nav" aria-label="Settings">
      <ul>
        {pagesFor(role).map(({ page, label }) => (
          <li key={page}>
            <a href={href('settings', page)} aria-current={page === current ? 'page' : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
