// One issue's page (/organizations/{org}/issues/{shortId}): filled in by the issue page work.
import type { OrganizationRoute } from '../organization-page.ts';

export const issueRoutes: OrganizationRoute[] = [];
