import { describe, expect, it } from 'vitest';
import { API_VERSION, errataSpec, type ErrataResource } from '../api/errata-resource.ts';
import { observedStatus, roleObservation, statusChanged, type Observation, type RoleObservation } from './observe-status.ts';

const urls = { ingest: 'https://errata.example.com', mcp: 'https://errata.example.com' };
const role = (over: Partial<RoleObservation> = {}): RoleObservation => ({
  desired: 2,
  ready: 2,
  updated: 2,
  total: 2,
  settled: true,
  version: '0.2.0',
  ...over,
});
const allRoles = (over: Partial<RoleObservation> = {}) => ({ ingest: role(over), mcp: role(over), dispatcher: role(over) });
const conditionsOf = (status: ReturnType<typeof observedStatus>) =>
  Object.fromEntries(status.conditions!.map((c) => [c.type, `${c.status} ${c.reason}`]));

const base: Observation = {
  generation: 4,
  targetVersion: '0.2.0',
  migration: { state: 'succeeded', version: '0.2.0', job: 'prod-migrate-020' },
  roles: allRoles(),
  urls,
};
const t0 = new Date('2026-11-22T10:00:00Z');
const t1 = new Date('2026-11-22T10:05:00Z');

describe('observed status', () => {
  it('is Ready only when migrated and every role has all its replicas ready on the version', () => {
    const status = observedStatus(undefined, base, t0);
    expect(conditionsOf(status)).toEqual({
      Ready: 'True AllRolesReady',
      Progressing: 'False Stable',
      Degraded: 'False AsExpected',
      MigrationsComplete: 'True Migrated',
    });
    expect(status).toMatchObject({
      observedGeneration: 4,
      version: '0.2.0',
      migratedVersion: '0.2.0',
      replicas: { ingest: { desired: 2, ready: 2 }, mcp: { desired: 2, ready: 2 }, dispatcher: { desired: 2, ready: 2 } },
      urls,
    });
    const oneShort = observedStatus(status, { ...base, roles: { ...allRoles(), mcp: role({ ready: 1 }) } }, t1);
    expect(conditionsOf(oneShort).Ready).toBe('False RolesNotReady');
    expect(oneShort.conditions!.find((c) => c.type === 'Ready')!.message).toBe('not ready: ingest 2/2, mcp 1/2, dispatcher 2/2');
  });

  it('moves a condition’s transition time only when its status changes', () => {
    const first = observedStatus(undefined, base, t0);
    const again = observedStatus(first, base, t1);
    expect(again.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime).toBe(t0.toISOString());
    const down = observedStatus(again, { ...base, roles: { ...allRoles(), ingest: role({ ready: 0 }) } }, t1);
    expect(down.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime).toBe(t1.toISOString());
  });

  it('says a new version is migrating, then rolling out', () => {
    const migrating = observedStatus(
      undefined,
      { ...base, targetVersion: '0.3.0', migration: { state: 'running', version: '0.3.0', job: 'prod-migrate-030' } },
      t0,
    );
    expect(conditionsOf(migrating)).toEqual({
      Ready: 'False RolesNotReady',
      Progressing: 'True MigrationRunning',
      Degraded: 'False AsExpected',
      MigrationsComplete: 'False MigrationRunning',
    });
    expect(migrating.version).toBe('0.2.0');
    const rolling = observedStatus(
      migrating,
      {
        ...base,
        targetVersion: '0.3.0',
        migration: { state: 'succeeded', version: '0.3.0', job: 'prod-migrate-030' },
        roles: { ...allRoles(), ingest: role({ version: '0.3.0', updated: 1, settled: true }) },
      },
      t1,
    );
    expect(conditionsOf(rolling)).toMatchObject({ Progressing: 'True RollingOut', Ready: 'False RolesNotReady' });
    expect(rolling.version).toBe('0.2.0');
    expect(rolling.migratedVersion).toBe('0.3.0');
  });

  it('reports a failed migration as Degraded, with the old version still serving', () => {
    const failed = observedStatus(
      observedStatus(undefined, base, t0),
      {
        ...base,
        targetVersion: '0.3.0',
        migration: {
          state: 'failed',
          version: '0.3.0',
          job: 'prod-migrate-030',
          message: 'Job has reached the specified backoff limit',
        },
      },
      t1,
    );
    expect(conditionsOf(failed)).toEqual({
      Ready: 'False RolesNotReady',
      Progressing: 'False Stable',
      Degraded: 'True MigrationFailed',
      MigrationsComplete: 'False MigrationFailed',
    });
    expect(failed.conditions!.find((c) => c.type === 'Degraded')!.message).toBe(
      'errata migrate for 0.3.0 failed: Job has reached the specified backoff limit; the roles keep running what they ran',
    );
    expect(failed).toMatchObject({ version: '0.2.0', migratedVersion: '0.2.0' });
  });

  it('reports pods the cluster refuses, and objects it would not apply, as Degraded', () => {
    const quota = observedStatus(
      undefined,
      { ...base, roles: { ...allRoles(), dispatcher: role({ ready: 0, failure: 'exceeded quota' }) } },
      t0,
    );
    expect(conditionsOf(quota).Degraded).toBe('True ReplicaFailure');
    expect(quota.conditions!.find((c) => c.type === 'Degraded')!.message).toBe('dispatcher: exceeded quota');
    const refused = observedStatus(undefined, { ...base, applyError: 'Ingress prod: admission webhook denied it' }, t0);
    expect(conditionsOf(refused).Degraded).toBe('True ApplyFailed');
  });

  it('reads a rollout past its progress deadline as a failure (crash loops, images that do not pull)', () => {
    const resource: ErrataResource = {
      apiVersion: API_VERSION,
      kind: 'Errata',
      metadata: { name: 'prod', namespace: 'errata', uid: 'u', generation: 1 },
      spec: errataSpec.parse({
        image: 'registry.example.com/errata',
        version: '0.2.0',
        kafka: { brokers: ['kafka:9092'] },
        clickhouse: { url: 'http://clickhouse:8123' },
        postgres: { url: { name: 'pg', key: 'url' } },
        s3: { bucket: 'maps' },
        secretsKey: { name: 'errata', key: 'secrets-key' },
      }),
    };
    const deployment = (conditions: unknown[]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'prod-ingest', generation: 2 },
      spec: { replicas: 2, template: { spec: { containers: [{ image: 'registry.example.com/errata:0.2.0' }] } } },
      status: { observedGeneration: 2, replicas: 3, readyReplicas: 2, updatedReplicas: 1, conditions },
    });
    const stalled = roleObservation(
      resource,
      'ingest',
      deployment([
        { type: 'Available', status: 'True' },
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "prod-ingest-7d9" has timed out progressing.',
        },
      ]),
    );
    expect(stalled.failure).toBe(
      'the rollout stopped progressing (ReplicaSet "prod-ingest-7d9" has timed out progressing.): see its pods\' events and logs',
    );
    const status = observedStatus(undefined, { ...base, roles: { ...allRoles(), ingest: stalled } }, t0);
    expect(conditionsOf(status).Degraded).toBe('True ReplicaFailure');
    // Still progressing within its deadline: nothing wrong yet.
    const rolling = roleObservation(
      resource,
      'ingest',
      deployment([{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }]),
    );
    expect(rolling).not.toHaveProperty('failure');

    // An autoscaler that cannot read the pods' CPU use against a request they lack stays at its minimum.
    const autoscaler = (message: string) => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'prod-ingest' },
      status: { conditions: [{ type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message }] },
    });
    const unmeasured = roleObservation(
      resource,
      'ingest',
      deployment([]),
      autoscaler(
        'the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container errata of Pod prod-ingest-1',
      ),
    );
    expect(unmeasured.failure).toMatch(
      /^the autoscaler cannot scale \(.*missing request for cpu.*\): give ingest\.resources\.requests\.cpu/,
    );
    // Metrics not there yet (new pods): nothing wrong.
    const fresh = roleObservation(
      resource,
      'ingest',
      deployment([]),
      autoscaler('unable to get metrics for resource cpu: no metrics returned'),
    );
    expect(fresh).not.toHaveProperty('failure');
  });

  it('is not Ready on a new template whose pods have not rolled yet, though the old pods are ready', () => {
    const ready = observedStatus(undefined, base, t0);
    const justApplied = observedStatus(
      ready,
      {
        ...base,
        targetVersion: '0.3.0',
        migration: { state: 'succeeded', version: '0.3.0', job: 'prod-migrate-030' },
        roles: allRoles({ version: '0.3.0', updated: 0, total: 2, ready: 2, settled: false }),
      },
      t1,
    );
    expect(conditionsOf(justApplied)).toMatchObject({ Ready: 'False RolesNotReady', Progressing: 'True RollingOut' });
    expect(justApplied.version).toBe('0.2.0');
    const halfway = observedStatus(
      justApplied,
      {
        ...base,
        targetVersion: '0.3.0',
        migration: { state: 'succeeded', version: '0.3.0', job: 'prod-migrate-030' },
        roles: allRoles({ version: '0.3.0', updated: 2, total: 3, ready: 2 }),
      },
      t1,
    );
    expect(conditionsOf(halfway).Ready).toBe('False RolesNotReady');
    const done = observedStatus(
      halfway,
      {
        ...base,
        targetVersion: '0.3.0',
        migration: { state: 'succeeded', version: '0.3.0', job: 'prod-migrate-030' },
        roles: allRoles({ version: '0.3.0' }),
      },
      t1,
    );
    expect(conditionsOf(done).Ready).toBe('True AllRolesReady');
    expect(done.version).toBe('0.3.0');
  });

  it('is written again only when it changed, not when the API server reorders its keys', () => {
    const status = observedStatus(undefined, base, t0);
    const sorted = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sorted)
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value)
                .sort(([a], [b]) => (a < b ? -1 : 1))
                .map(([k, v]) => [k, sorted(v)]),
            )
          : value;
    const readBack = sorted(status) as typeof status;
    expect(JSON.stringify(readBack)).not.toBe(JSON.stringify(status));
    expect(statusChanged(readBack, observedStatus(readBack, base, t1))).toBe(false);
    expect(statusChanged(readBack, observedStatus(readBack, { ...base, generation: 5 }, t1))).toBe(true);
    expect(statusChanged(undefined, status)).toBe(true);
  });
});
