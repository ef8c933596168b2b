// Ingest, once the key is known: the project id a request states (its URL's, or its envelope
// header dsn's: envelope-auth.ts) must be the key's project, as Relay's project check holds it
// (services/projects/project/info.rs `check_envelope`, DiscardReason::ProjectId, 403). A
// request that states none (the legacy /api/store/) is not checked.
import { dropping, ForbiddenError } from '../errors.ts';
import { outcome } from '../outcomes.ts';

export function checkStatedProject(statedProjectId: number | undefined, keyProjectId: number): void {
  if (statedProjectId === undefined || statedProjectId === keyProjectId) return;
  throw dropping(
    new ForbiddenError(
      `event submission rejected: project id ${statedProjectId} is not the project of this DSN key ` +
        `(its DSN ends in /${keyProjectId}): use the project's DSN exactly as Errata prints it`,
    ),
    outcome('project_id'),
  );
}
