// A project's DSN keys and its event rate limit, as the CLI (errata enablekey, disablekey,
// setratelimit, through runtime/admin/operations.ts) and the dashboard's Keys tab change them.
// Each answers the public keys whose cached state ingest must forget (ingest/key-cache.ts).
import { mintPublicKey, type RandomSource } from '../auth/secrets.ts';
import { NotFoundError, UserInputError } from '../errors.ts';
import type { MetadataStore, Project, ProjectKey } from '../ports/metadata-store.ts';
import { POSTGRES_INTEGER_MAX } from '../row-id.ts';

/** Adds an active key labelled `label` (1 to 100 characters) to the project. */
export async function addProjectKey(
  metadata: Pick<MetadataStore, 'createProjectKey'>,
  project: Pick<Project, 'id'>,
  label: string,
  random?: RandomSource,
): Promise<ProjectKey> {
  const trimmed = label.trim();
  if (!trimmed || trimmed.length > 100) {
    throw new UserInputError('a DSN key needs a label of 1 to 100 characters, such as the app that will use it');
  }
  return metadata.createProjectKey(project.id, { publicKey: mintPublicKey(random), label: trimmed });
}

/** Enables or disables one of this project's keys; a key of another project is not found, as an unknown one. */
export async function setKeyActiveIn(
  metadata: Pick<MetadataStore, 'listProjectKeys' | 'setProjectKeyActive'>,
  project: Pick<Project, 'id' | 'slug'>,
  publicKey: string,
  active: boolean,
): Promise<ProjectKey> {
  const owned = (await metadata.listProjectKeys(project.id)).some((key) => key.publicKey === publicKey);
  const key = owned ? await metadata.setProjectKeyActive(publicKey, active) : undefined;
  if (!key) throw new NotFoundError(`project ${project.slug} has no DSN key "${publicKey.slice(0, 64)}"`);
  return key;
}

/** The largest limit a project can keep (a Postgres integer column). */
export const MAX_RATE_LIMIT = POSTGRES_INTEGER_MAX;

/** Whether `value` can be a project's events-per-minute limit. */
export function isRateLimit(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0 && value <= MAX_RATE_LIMIT;
}

/** Events per minute for the project, or null for the instance default; the keys whose cached limit is now stale. */
export async function setEventRateLimit(
  metadata: Pick<MetadataStore, 'listProjectKeys' | 'setProjectRateLimit'>,
  project: Pick<Project, 'id'>,
  eventsPerMinute: number | null,
): Promise<string[]> {
  if (eventsPerMinute !== null && !isRateLimit(eventsPerMinute)) {
    throw new UserInputError(
      `the rate limit must be a whole number of events per minute from 0 to ${MAX_RATE_LIMIT.toLocaleString('en-US')} (got ${eventsPerMinute})`,
    );
  }
  await metadata.setProjectRateLimit(project.id, eventsPerMinute);
  return (await metadata.listProjectKeys(project.id)).map((key) => key.publicKey);
}
