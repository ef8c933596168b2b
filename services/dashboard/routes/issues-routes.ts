// The Issues page (/organizations/{org}/issues): filled in by the Issues list work.
import type { OrganizationRoute } from '../organization-page.ts';

export const issuesRoutes: OrganizationRoute[] = [];
