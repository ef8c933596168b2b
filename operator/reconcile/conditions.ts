// Status conditions, as Kubernetes conventions have them: one entry per type, whose
// lastTransitionTime moves only when its status changes. Reasons are constants, so clients
// (and `kubectl get erratas`) can rely on them.
import type { Condition, ConditionType } from '../api/errata-resource.ts';

export const REASONS = {
  ready: 'AllRolesReady',
  rolesNotReady: 'RolesNotReady',
  rollingOut: 'RollingOut',
  migrating: 'MigrationRunning',
  stable: 'Stable',
  migrated: 'Migrated',
  migrationFailed: 'MigrationFailed',
  invalidSpec: 'InvalidSpec',
  applyFailed: 'ApplyFailed',
  replicaFailure: 'ReplicaFailure',
  asExpected: 'AsExpected',
} as const;

export interface ConditionInput {
  type: ConditionType;
  status: boolean;
  reason: string;
  message: string;
}

/** The new set of conditions: each given one replaces its type, keeping its transition time if its status stayed. */
export function mergeConditions(
  previous: Condition[] | undefined,
  next: ConditionInput[],
  now: Date,
  generation: number,
): Condition[] {
  return next.map((input) => {
    const status = input.status ? 'True' : 'False';
    const before = previous?.find((c) => c.type === input.type);
    return {
      type: input.type,
      status,
      reason: input.reason,
      message: input.message,
      lastTransitionTime: before && before.status === status ? before.lastTransitionTime : now.toISOString(),
      observedGeneration: generation,
    };
  });
}
