// The Projects pages (/organizations/{org}/projects/...): filled in by the Projects work.
import type { OrganizationRoute } from '../organization-page.ts';

export const projectRoutes: OrganizationRoute[] = [];
