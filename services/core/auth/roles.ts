// Agent token roles: read < triage < admin. Every API call and (later) MCP tool names the
// least role it needs; a token's role must reach it.

export const ROLES = ['read', 'triage', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

/**
 * The least role that may read a project's DSN (get_dsn, the read API's project listing, the
 * install guides). A DSN lets anyone send events into the project, so it is for provisioning.
 */
export const DSN_READER_ROLE: Role = 'admin';

/** What each role allows, as whoami and the agent manifest tell it. */
export const ROLE_GRANTS: Record<Role, string> = {
  read: 'List and search issues, events, logs and releases; whoami; verify_installation.',
  triage: 'Everything read does, plus resolve, unresolve, ignore and snooze (update_issue, bulk_update_issues).',
  admin:
    'Everything triage does, plus deleting issues, bulk deletes, and provisioning: create_project (organization-wide tokens only) and get_dsn.',
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
