// Pieces the Projects pages share: a copyable code box (the copy button appears only with
// JavaScript, assets/copy-button.ts; without it the text is there to select), a project's
// heading with its tabs, and the notice a form answers with.
import type { Project } from '../../core/ports/metadata-store.ts';

/** Text in a box with a copy button; `id` names the text for the button (unique on the page). */
export function CopyBox({ id, text, what, multiline }: { id: string; text: string; what: string; multiline?: boolean }) {
  return (
    <div class={multiline ? 'copy-box copy-box-block' : 'copy-box'}>
      <pre id={id} class="copy-text">
        <code>{text}</code>
      </pre>
      <button class="button copy-button" type="button" data-copy={id} hidden>
        <span class="copy-label">Copy</span>
        <span class="visually-hidden">{` ${what}`}</span>
      </button>
    </div>
  );
}

export interface FormNotice {
  kind: 'saved' | 'error';
  text: string;
}

export function Notice({ notice }: { notice: FormNotice | undefined }) {
  if (!notice) return null;
  return notice.kind === 'error' ? (
    <p class="notice notice-warning" role="alert">
      {notice.text}
    </p>
  ) : (
    <p class="notice notice-saved" role="status">
      {notice.text}
    </p>
  );
}

type Tab = 'overview' | 'releases' | 'keys' | 'source-maps';

interface ProjectHeaderProps {
  project: Project;
  /** /organizations/{org}/projects */
  projectsHref: string;
  issuesHref: string;
  current: Tab;
  /** The DSN keys and Source maps tabs are for people who may manage them (the `projects` capability). */
  showKeys: boolean;
}

export function ProjectHeader({ project, projectsHref, issuesHref, current, showKeys }: ProjectHeaderProps) {
  const base = `${projectsHref}/${encodeURIComponent(project.slug)}`;
  const tabs: Array<{ tab: Tab; label: string; href: string }> = [
    { tab: 'overview', label: 'Set-up', href: base },
    { tab: 'releases', label: 'Releases', href: `${base}/releases` },
    ...(showKeys
      ? [
          { tab: 'keys' as const, label: 'DSN keys', href: `${base}/keys` },
          { tab: 'source-maps' as const, label: 'Source maps', href: `${base}/source-maps` },
        ]
      : []),
  ];
  return (
    <header class="project-header">
      <nav class="breadcrumb" aria-label="Breadcrumb">
        <a href={projectsHref}>Projects</a>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{project.slug}</span>
      </nav>
      <div class="project-title">
        <h1>{project.name}</h1>
        <a class="button" href={`${issuesHref}?project=${encodeURIComponent(project.slug)}`}>
          Issues
        </a>
      </div>
      {tabs.length > 1 ? (
        <nav class="tabs" aria-label="Project">
          {tabs.map(({ tab, label, href }) => (
            <a key={tab} href={href} class="tab" aria-current={tab === current ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
      ) : (
        <div class="tabs-rule" />
      )}
    </header>
  );
}
