import { describe, expect, it } from 'vitest';
import { CAPABILITIES, can, HUMAN_ROLES, isHumanRole, type Actor, type Capability } from './capabilities.ts';
import { ROLES } from './roles.ts';

const granted = (actor: Actor): Capability[] => CAPABILITIES.filter((c) => can(actor, c));

describe('capabilities', () => {
  it('gives a member read and triage, an admin deletes, projects, alerts and agent activity, an owner tokens and people too', () => {
    expect(granted({ kind: 'user', role: 'member' })).toEqual(['read', 'triage']);
    expect(granted({ kind: 'user', role: 'admin' })).toEqual(['read', 'triage', 'delete', 'projects', 'alerts', 'agent_activity']);
    expect(granted({ kind: 'user', role: 'owner' })).toEqual([...CAPABILITIES]);
  });

  it('maps agent roles onto the same capabilities, never tokens, people or agent activity', () => {
    expect(granted({ kind: 'agent', role: 'read' })).toEqual(['read']);
    expect(granted({ kind: 'agent', role: 'triage' })).toEqual(granted({ kind: 'user', role: 'member' }));
    expect(granted({ kind: 'agent', role: 'admin' })).toEqual(['read', 'triage', 'delete', 'projects', 'alerts']);
    for (const role of ROLES) {
      expect(can({ kind: 'agent', role }, 'agent_tokens')).toBe(false);
      expect(can({ kind: 'agent', role }, 'members')).toBe(false);
      expect(can({ kind: 'agent', role }, 'agent_activity')).toBe(false);
    }
  });

  it('tells human roles from anything else', () => {
    for (const role of HUMAN_ROLES) expect(isHumanRole(role)).toBe(true);
    expect(isHumanRole('triage')).toBe(false);
    expect(isHumanRole(undefined)).toBe(false);
  });
});
