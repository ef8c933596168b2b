// A project's releases as update_issue and check_resolution show them beside a marker release
// the project never saw. The names are what SDKs sent, so they travel under untrustedData.
import { z } from 'zod';
import type { Release } from '../../core/ports/issue-store.ts';

export const recentReleasesSchema = z.array(z.object({ version: z.string(), firstSeen: z.string(), lastSeen: z.string() }));

export function releaseView(release: Release): z.infer<typeof recentReleasesSchema>[number] {
  return { version: release.version, firstSeen: release.firstSeen.toISOString(), lastSeen: release.lastSeen.toISOString() };
}
