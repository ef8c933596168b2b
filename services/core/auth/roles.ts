// Agent token roles: read < triage < admin. Every API call and (later) MCP tool names the
// least role it needs; a token's role must reach it.

export const ROLES = ['read', 'triage', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
