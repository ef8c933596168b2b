// The release a resolve names, as the project knows it. A marker release the project never saw
// counts as later than every release (lifecycle.ts), so until an event of exactly that name
// arrives no event of another release regresses the issue: a name unlike the SDK's
// ("0.2.0" for "sandbox@0.2.0") would hold the issue resolved for ever. update_issue warns of it
// and check_resolution answers awaiting_release, both with the project's recent releases.
import type { MetadataStore } from '../ports/metadata-store.ts';
import type { Release } from '../ports/issue-store.ts';

/** How many of the project's newest releases an unseen marker release is shown beside. */
const RECENT_RELEASES = 5;
/** The newest releases searched for the same version under another name: bounded, as DSN holders add releases. */
const SEARCHED_RELEASES = 1_000;
/** Of those, how many are shown. */
const SAME_VERSION_SHOWN = 5;

interface MarkerRelease {
  /** The release, when the project has seen it. */
  seen: Release | undefined;
  /** Unseen only: the newest releases, then any of the same version under another name; else empty. */
  recent: Release[];
  /** Unseen only: how many of the newest releases seen have the same version under another name (package@version). */
  sameVersion: number;
}

export async function markerRelease(
  metadata: Pick<MetadataStore, 'findRelease' | 'listReleases'>,
  projectId: number,
  version: string,
): Promise<MarkerRelease> {
  const seen = await metadata.findRelease(projectId, version);
  if (seen) return { seen, recent: [], sameVersion: 0 };
  // Only for an unseen name, which is rare: the newest releases are read once.
  const releases = await metadata.listReleases(projectId, SEARCHED_RELEASES);
  const same = releases.filter((release) => versionPart(release.version) === versionPart(version));
  const recent = releases.slice(0, RECENT_RELEASES);
  const sameShown = same.filter((r) => !recent.includes(r)).slice(0, SAME_VERSION_SHOWN);
  return { seen: undefined, recent: [...recent, ...sameShown], sameVersion: same.length };
}

/** The version of a Sentry release name: what follows package@ (and the whole name without one). */
function versionPart(name: string): string {
  return name.slice(name.lastIndexOf('@') + 1);
}

/**
 * Why an unseen marker release matters, in Errata's words (it quotes no release name, which an
 * agent or an SDK wrote): for update_issue's warning and check_resolution's awaiting_release.
 */
export function unseenReleaseText(release: MarkerRelease): string {
  const hint =
    release.sameVersion > 0
      ? ` ${release.sameVersion} of the project's ${SEARCHED_RELEASES.toLocaleString('en-US')} newest releases ${release.sameVersion === 1 ? 'has' : 'have'} the same version under another name: resolve again with the exact name the SDK sends.`
      : ' Release names must match what the SDK sends exactly (often package@version).';
  return (
    'This project has never seen the release the resolve names, so no event of another release brings the issue back ' +
    `until an event of exactly that release arrives.${hint}`
  );
}
