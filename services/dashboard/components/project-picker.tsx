// The project a list page shows (Issues, Logs): a GET form whose select submits itself (the
// button is there for browsers without JavaScript), so the address names the project.
import type { Project } from '../../core/ports/tenancy-store.ts';

interface ProjectPickerProps {
  /** Where the form goes: the page's own address. */
  action: string;
  projects: Project[];
  chosen: Project;
}

export function ProjectPicker({ action, projects, chosen }: ProjectPickerProps) {
  return (
    <form class="project-picker" method="get" action={action}>
      <label for="project">Project</label>
      <select id="project" name="project" data-autosubmit="">
        {projects.map((p) => (
          <option key={p.id} value={p.slug} selected={p.id === chosen.id}>
            {p.name}
          </option>
        ))}
      </select>
      <button class="button button-small" type="submit" data-autosubmit-button="">
        Show
      </button>
    </form>
  );
}
