// What the status says, from what was observed (pure): the four conditions, ready replicas per
// role, the version running, and the public URLs. Honest by construction: Ready only when every
// role has all its replicas ready on the current version after migrations completed.
import { ROLES, type Condition, type ErrataResource, type ErrataStatus, type Role } from '../api/errata-resource.ts';
import { specHash } from '../desired/metadata.ts';
import type { LiveObject } from './kube.ts';
import { mergeConditions, REASONS, type ConditionInput } from './conditions.ts';

export interface RoleObservation {
  /** Replicas wanted: the spec's, or the autoscaler's current wish. */
  desired: number;
  ready: number;
  /** Pods on the Deployment's current template. */
  updated: number;
  /** Pods of the Deployment, old template included. */
  total: number;
  /** The Deployment controller has seen its latest spec. */
  settled: boolean;
  /** The version its template runs, if the Deployment exists. */
  version: string | undefined;
  /** Why its pods are not coming: a ReplicaFailure's message, or a rollout past its progress deadline. */
  failure?: string;
}

/** The migration to `version` with the spec's settings, run by the Job named `job`. */
export type MigrationObservation =
  | { state: 'succeeded'; version: string; job: string }
  | { state: 'running'; version: string; job: string }
  | { state: 'failed'; version: string; job: string; message: string };

export interface Observation {
  generation: number;
  targetVersion: string;
  migration: MigrationObservation;
  roles: Partial<Record<Role, RoleObservation>>;
  urls: { ingest: string; mcp: string };
  /** Set when applying the desired objects failed on the previous pass. */
  applyError?: string;
}

export function observedStatus(previous: ErrataStatus | undefined, o: Observation, now: Date): ErrataStatus {
  const roles = ROLES.map((role) => ({ role, seen: o.roles[role] }));
  const migrated = o.migration.state === 'succeeded';
  // Rolled out: the controller saw the template, and every pod runs it (a template changes at
  // once; its pods do not, and the old ones keep counting as ready meanwhile).
  const rolledOut = (seen: RoleObservation) => seen.settled && seen.updated >= seen.desired && seen.total <= seen.updated;
  const notReady = roles.filter(
    ({ seen }) => !seen || !rolledOut(seen) || seen.ready < seen.desired || seen.version !== o.targetVersion,
  );
  const rolling = roles.filter(({ seen }) => seen && !rolledOut(seen));
  const failures = roles.flatMap(({ role, seen }) => (seen?.failure ? [`${role}: ${seen.failure}`] : []));
  const readiness = roles.map(({ role, seen }) => `${role} ${seen?.ready ?? 0}/${seen?.desired ?? 0}`).join(', ');

  const migration: ConditionInput =
    o.migration.state === 'failed'
      ? {
          type: 'MigrationsComplete',
          status: false,
          reason: REASONS.migrationFailed,
          message: `errata migrate for ${o.migration.version} failed: ${o.migration.message}; the roles keep running what they ran`,
        }
      : migrated
        ? { type: 'MigrationsComplete', status: true, reason: REASONS.migrated, message: `the schema is at ${o.targetVersion}` }
        : {
            type: 'MigrationsComplete',
            status: false,
            reason: REASONS.migrating,
            message: `errata migrate for ${o.targetVersion} is running`,
          };
  const progressing: ConditionInput =
    !migrated && o.migration.state !== 'failed'
      ? { type: 'Progressing', status: true, reason: REASONS.migrating, message: `migrating to ${o.targetVersion}` }
      : rolling.length > 0 || (migrated && notReady.some(({ seen }) => seen?.version !== o.targetVersion))
        ? {
            type: 'Progressing',
            status: true,
            reason: REASONS.rollingOut,
            message: `rolling out ${o.targetVersion}: ${readiness}`,
          }
        : {
            type: 'Progressing',
            status: false,
            reason: REASONS.stable,
            message: migrated ? `running ${o.targetVersion}` : `running ${previous?.version ?? 'nothing yet'}`,
          };
  const degraded: ConditionInput =
    o.migration.state === 'failed'
      ? { type: 'Degraded', status: true, reason: REASONS.migrationFailed, message: migration.message }
      : o.applyError
        ? { type: 'Degraded', status: true, reason: REASONS.applyFailed, message: o.applyError }
        : failures.length > 0
          ? { type: 'Degraded', status: true, reason: REASONS.replicaFailure, message: failures.join('; ') }
          : { type: 'Degraded', status: false, reason: REASONS.asExpected, message: 'nothing wrong observed' };
  const ready: ConditionInput =
    migrated && notReady.length === 0
      ? { type: 'Ready', status: true, reason: REASONS.ready, message: `all roles ready on ${o.targetVersion}: ${readiness}` }
      : {
          type: 'Ready',
          status: false,
          reason: REASONS.rolesNotReady,
          message: `not ready: ${readiness}${migrated ? '' : `; ${migration.message}`}`,
        };

  // The version all roles run: set once every pod of every role runs it; until then the last one.
  const versions = new Set(roles.map(({ seen }) => (seen && rolledOut(seen) ? seen.version : undefined)));
  const running = versions.size === 1 ? ([...versions][0] ?? previous?.version) : previous?.version;
  const conditions: Condition[] = mergeConditions(
    previous?.conditions,
    [ready, progressing, degraded, migration],
    now,
    o.generation,
  );
  return {
    observedGeneration: o.generation,
    conditions,
    ...(running ? { version: running } : {}),
    ...(o.migration.state === 'succeeded'
      ? { migratedVersion: o.migration.version, migratedJob: o.migration.job }
      : {
          ...(previous?.migratedVersion ? { migratedVersion: previous.migratedVersion } : {}),
          ...(previous?.migratedJob ? { migratedJob: previous.migratedJob } : {}),
        }),
    replicas: Object.fromEntries(roles.map(({ role, seen }) => [role, { desired: seen?.desired ?? 0, ready: seen?.ready ?? 0 }])),
    urls: o.urls,
  };
}

/**
 * What a role's Deployment, and its autoscaler if it has one, say of themselves. A failure is a
 * ReplicaFailure (quota or admission refused pods), a rollout past its progress deadline (pods
 * crash or their image does not pull): before, that read as nothing wrong while the rollout
 * never ended; or an autoscaler that cannot measure the pods' CPU against a request they lack,
 * which leaves the role at minReplicas for good without a word.
 */
export function roleObservation(
  resource: ErrataResource,
  role: Role,
  deployment: LiveObject,
  autoscaler?: LiveObject,
): RoleObservation {
  const status = deployment.status ?? {};
  const image = String(deployment.spec?.template?.spec?.containers?.[0]?.image ?? '');
  const conditions = (status.conditions ?? []) as Array<{ type: string; status: string; reason?: string; message?: string }>;
  const refused = conditions.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  const stalled = conditions.find(
    (c) => c.type === 'Progressing' && c.status === 'False' && c.reason === 'ProgressDeadlineExceeded',
  );
  const scaling = ((autoscaler?.status?.conditions ?? []) as typeof conditions).find(
    (c) => c.type === 'ScalingActive' && c.status === 'False' && /missing request for cpu/.test(c.message ?? ''),
  );
  const failure = refused
    ? (refused.message ?? 'pods could not be created')
    : stalled
      ? `the rollout stopped progressing (${stalled.message ?? 'its progress deadline passed'}): see its pods' events and logs`
      : scaling
        ? `the autoscaler cannot scale (${scaling.message}): give ${role}.resources.requests.cpu, or a LimitRange default`
        : undefined;
  return {
    desired: deployment.spec?.replicas ?? resource.spec[role].autoscaling?.minReplicas ?? resource.spec[role].replicas,
    ready: status.readyReplicas ?? 0,
    updated: status.updatedReplicas ?? 0,
    total: status.replicas ?? 0,
    settled: (status.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0),
    version: image.includes(':') ? image.slice(image.lastIndexOf(':') + 1) : undefined,
    ...(failure ? { failure } : {}),
  };
}

/**
 * Whether the status differs from the one read back, whatever the order of its keys: the API
 * server hands an object's keys back sorted, so comparing the JSON as written found a change
 * on every pass, and each pass sent a status write.
 */
export function statusChanged(previous: ErrataStatus | undefined, next: ErrataStatus): boolean {
  return previous === undefined || specHash(previous) !== specHash(next);
}
