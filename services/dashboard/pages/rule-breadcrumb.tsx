// Where the Alert rules pages sit: Projects / the project / Alert rules (/ the rule).
import type { Project } from '../../core/ports/metadata-store.ts';

interface RuleBreadcrumbProps {
  href: (...segments: string[]) => string;
  project: Project;
  /** On a rule's page (or New rule): its name, the current page. */
  current?: string;
}

export function RuleBreadcrumb({ href, project, current }: RuleBreadcrumbProps) {
  const rules = href('projects', project.slug, 'alert-rules');
  return (
    <nav class="breadcrumb" aria-label="Breadcrumb">
      <a href={href('projects')}>Projects</a>
      <span aria-hidden="true"> / </span>
      <a href={href('projects', project.slug)}>{project.slug}</a>
      <span aria-hidden="true"> / </span>
      {current === undefined ? (
        <span aria-current="page">Alert rules</span>
      ) : (
        <>
          <a href={rules}>Alert rules</a>
          <span aria-hidden="true"> / </span>
          <span aria-current="page">{current}</span>
        </>
      )}
    </nav>
  );
}
