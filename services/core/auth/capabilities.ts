// What a person or an agent may do, as one set of capabilities checked on the server. People
// have human roles (owner, admin, member); agent tokens keep their own roles (read, triage,
// admin, roles.ts) and map onto the same capabilities, so a page, an API route and an MCP tool
// that do the same thing ask for the same capability.
import type { Role } from './roles.ts';

export const CAPABILITIES = [
  /** See issues, events, logs, releases and projects. */
  'read',
  /** Resolve, unresolve, ignore, snooze, one issue or many. */
  'triage',
  /** Delete issues, and any bulk destructive action. */
  'delete',
  /** Create projects; see and manage DSN keys, rate limits, upload tokens and source maps. */
  'projects',
  /** Alert channels and rules. */
  'alerts',
  /** Create, list and revoke agent tokens. */
  'agent_tokens',
  /** See what agent tokens did: every MCP tool call, its outcome and the issues it touched. */
  'agent_activity',
  /** Add, change and remove people. */
  'members',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const HUMAN_ROLES = ['owner', 'admin', 'member'] as const;
export type HumanRole = (typeof HUMAN_ROLES)[number];

export function isHumanRole(value: unknown): value is HumanRole {
  return typeof value === 'string' && (HUMAN_ROLES as readonly string[]).includes(value);
}

const MEMBER: readonly Capability[] = ['read', 'triage'];
const ADMIN: readonly Capability[] = [...MEMBER, 'delete', 'projects', 'alerts'];
// Watching agents is for the people who answer for them: owners and admins, never an agent
// (a token reading what other tokens did would be a token managing tokens by another name).
const HUMAN_ADMIN: readonly Capability[] = [...ADMIN, 'agent_activity'];
const OWNER: readonly Capability[] = [...HUMAN_ADMIN, 'agent_tokens', 'members'];

const HUMAN_CAPABILITIES: Record<HumanRole, ReadonlySet<Capability>> = {
  owner: new Set(OWNER),
  admin: new Set(HUMAN_ADMIN),
  member: new Set(MEMBER),
};

// An agent's admin does what a human admin does (deletes, provisioning, alerts, maps), never
// manage tokens or people, nor watch other agents: that stays with people. This mirrors what roleAtLeast enforces for
// agents today; it does not change it.
const AGENT_CAPABILITIES: Record<Role, ReadonlySet<Capability>> = {
  read: new Set(['read']),
  triage: new Set(MEMBER),
  admin: new Set(ADMIN),
};

/** Who is acting: a signed-in person or an agent token. */
export type Actor = { kind: 'user'; role: HumanRole } | { kind: 'agent'; role: Role };

export function can(actor: Actor, capability: Capability): boolean {
  const granted = actor.kind === 'user' ? HUMAN_CAPABILITIES[actor.role] : AGENT_CAPABILITIES[actor.role];
  return granted.has(capability);
}
