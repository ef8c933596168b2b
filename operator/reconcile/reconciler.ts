// One pass over one Errata, in the order cloudnative-pg uses: observe (the resource, its
// migration Job, its Deployments), write status (what was observed, nothing hoped for), act
// (the migration Job, then every owned object whose spec hash changed, then pruning). A pass is
// idempotent; the work queue runs it again on any change and on a timer.
import {
  API_VERSION,
  errataSpec,
  KIND,
  ROLES,
  type ErrataResource,
  type ErrataStatus,
  type Role,
} from '../api/errata-resource.ts';
import { publicUrls } from '../desired/environment.ts';
import { desiredObjects, OWNED_KINDS, type KubeObject } from '../desired/desired-objects.ts';
import { objectName, SPEC_HASH_ANNOTATION } from '../desired/metadata.ts';
import { MIGRATED_JOB_ANNOTATION, migrationJob, migrationJobName } from '../desired/workloads.ts';
import { mergeConditions, REASONS } from './conditions.ts';
import { drifted } from './drift.ts';
import { apiFailure, type Kube, type LiveObject } from './kube.ts';
import {
  observedStatus,
  roleObservation,
  statusChanged,
  type MigrationObservation,
  type RoleObservation,
} from './observe-status.ts';

const SERVICE_MONITOR_CRD = 'servicemonitors.monitoring.coreos.com';
const PROMETHEUS_RULE_CRD = 'prometheusrules.monitoring.coreos.com';
const REPLICAS_HANDOVER_MANAGER = 'errata-operator-handover';
/** What pods run from: neither applied nor pruned until the spec's migration succeeded. */
const HELD_UNTIL_MIGRATED = new Set(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler']);

/** The live objects apart from the held ones, which a pass that may not change them must not prune either. */
function withoutHeld(live: Map<string, LiveObject>): Map<string, LiveObject> {
  return new Map([...live].filter(([, object]) => !HELD_UNTIL_MIGRATED.has(object.kind!)));
}

interface PassResult {
  /** Come back after this long: something is still moving (a migration, a rollout). */
  requeueAfterMs?: number;
}

export class Reconciler {
  /** The last apply failure per resource, reported by the next pass's status. */
  private readonly applyErrors = new Map<string, string>();

  constructor(
    private readonly kube: Kube,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async reconcile(key: string): Promise<PassResult> {
    const [namespace, name] = key.split('/') as [string, string];
    const live = await this.kube.getErrata(namespace, name);
    // Gone, or going: what it owns carries owner references, and the garbage collector follows.
    if (!live || live.metadata.deletionTimestamp) {
      this.applyErrors.delete(key);
      return {};
    }
    const generation = live.metadata.generation ?? 0;
    const previous = live.status as ErrataStatus | undefined;
    const parsed = errataSpec.safeParse(live.spec);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const message = `spec.${issue.path.join('.')}: ${issue.message}`;
      // Not Ready, nor progressing, at this generation: the old Ready=True carried over told a
      // GitOps tool (or kubectl wait) that a spec never applied was done. What runs is untouched.
      const notApplied = `generation ${generation} is not applied (${message}); what runs is what the last valid spec made`;
      const replaced = new Set(['Degraded', 'Ready', 'Progressing']);
      await this.kube.writeStatus(namespace, name, {
        ...previous,
        observedGeneration: generation,
        conditions: [
          ...(previous?.conditions ?? []).filter((c) => !replaced.has(c.type)),
          ...mergeConditions(
            previous?.conditions,
            [
              { type: 'Ready', status: false, reason: REASONS.invalidSpec, message: notApplied },
              { type: 'Progressing', status: false, reason: REASONS.invalidSpec, message: notApplied },
              { type: 'Degraded', status: true, reason: REASONS.invalidSpec, message },
            ],
            this.now(),
            generation,
          ),
        ],
      });
      return {};
    }
    const resource: ErrataResource = {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name, namespace, uid: live.metadata.uid!, generation },
      spec: parsed.data,
      ...(previous ? { status: previous } : {}),
    };

    // Observe: what it owns now (read once, for the status and for the acting after it).
    const target = resource.spec.version;
    // A kind whose CRD is missing can be neither listed nor applied.
    const serviceMonitorCrdInstalled = await this.kube.crdInstalled(SERVICE_MONITOR_CRD);
    const prometheusRuleCrdInstalled = await this.kube.crdInstalled(PROMETHEUS_RULE_CRD);
    const owned = await this.listOwned(
      resource,
      OWNED_KINDS.filter(
        (kind) =>
          (kind !== 'ServiceMonitor' || serviceMonitorCrdInstalled) && (kind !== 'PrometheusRule' || prometheusRuleCrdInstalled),
      ),
    );
    const migration = await this.observeMigration(resource, previous, owned.get(`ConfigMap/${objectName(resource, 'config')}`));
    const migrated = migration.state === 'succeeded';
    // What pods run from changes only once the schema is migrated for it: while a migration runs,
    // or after it failed, the roles keep what they have (and nothing runs before the first).
    const desired = desiredObjects(resource, { serviceMonitorCrdInstalled, prometheusRuleCrdInstalled }).filter(
      (object) => migrated || !HELD_UNTIL_MIGRATED.has(object.kind),
    );
    const desiredHashes = new Map(
      desired.map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.annotations[SPEC_HASH_ANNOTATION]]),
    );
    const roles: Partial<Record<Role, RoleObservation>> = {};
    for (const role of ROLES) {
      const deploymentKey = `Deployment/${objectName(resource, role)}`;
      const deployment = owned.get(deploymentKey);
      if (!deployment) continue;
      const observed = roleObservation(
        resource,
        role,
        deployment,
        owned.get(`HorizontalPodAutoscaler/${objectName(resource, role)}`),
      );
      // A Deployment this pass is about to change is not rolled out yet: else the status written
      // before the change said Ready at the new generation, and a GitOps tool took it as done.
      const wanted = desiredHashes.get(deploymentKey);
      const changing = wanted !== undefined && wanted !== deployment.metadata.annotations?.[SPEC_HASH_ANNOTATION];
      roles[role] = changing ? { ...observed, settled: false } : observed;
    }

    // Write status.
    const observation = {
      generation,
      targetVersion: target,
      migration,
      roles,
      urls: publicUrls(name, namespace, resource.spec),
    };
    const applyError = this.applyErrors.get(key);
    const status = observedStatus(previous, { ...observation, ...(applyError ? { applyError } : {}) }, this.now());
    if (statusChanged(previous, status)) await this.kube.writeStatus(namespace, name, status);

    // Act.
    try {
      // A Job the API server refuses (a LimitRange, a quota) is reported, after the objects that
      // do not wait for it are applied all the same.
      let jobError: unknown;
      if (migration.state === 'running') {
        try {
          await this.kube.apply(migrationJob(resource));
        } catch (error) {
          jobError = error;
        }
      }
      await this.applyChanged(resource, desired, migrated ? owned : withoutHeld(owned));
      if (jobError) throw jobError;
      this.applyErrors.delete(key);
    } catch (error) {
      this.applyErrors.set(key, apiFailure(error));
      throw error;
    }
    // A failure whose cause went away outside the spec (a quota raised) is cleared now: the
    // status above still reported it, and nothing else would come back before the resync.
    if (applyError) {
      const cleared = observedStatus(status, observation, this.now());
      if (statusChanged(status, cleared)) await this.kube.writeStatus(namespace, name, cleared);
    }
    const settled = status.conditions!.every((c) => (c.type === 'Progressing' ? c.status === 'False' : true));
    return settled ? {} : { requeueAfterMs: 5_000 };
  }

  /**
   * The migration is known done by the name of the Job that succeeded, which hashes the version
   * and every setting it migrated with. Before, it was known by the version alone, so a spec
   * pointing at a new, empty database rolled pods onto it and never migrated it. A status
   * written before `migratedJob` existed runs the (idempotent) migration once more.
   */
  private async observeMigration(
    resource: ErrataResource,
    previous: ErrataStatus | undefined,
    config: LiveObject | undefined,
  ): Promise<MigrationObservation> {
    const version = resource.spec.version;
    const job = migrationJobName(resource);
    if (previous?.migratedJob === job || config?.metadata.annotations?.[MIGRATED_JOB_ANNOTATION] === job) {
      return { state: 'succeeded', version, job };
    }
    const live = await this.kube.get('Job', resource.metadata.namespace, job);
    if (!live) return { state: 'running', version, job };
    const conditions = (live.status?.conditions ?? []) as Array<{ type: string; status: string; message?: string }>;
    if (conditions.some((c) => c.type === 'Complete' && c.status === 'True') || (live.status?.succeeded ?? 0) > 0) {
      return { state: 'succeeded', version, job };
    }
    const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
    if (failed) return { state: 'failed', version, job, message: failed.message ?? 'the Job failed' };
    return { state: 'running', version, job };
  }

  /**
   * A Deployment that autoscaling now sizes leaves `replicas` out. Applied as is, the field would
   * lose its owner and fall back to 1 until the autoscaler acts; so its current value is first
   * handed to a separate field manager, from which the autoscaler's writes take it over.
   */
  private async handOverReplicas(current: LiveObject | undefined): Promise<void> {
    const replicas = current?.spec?.replicas;
    if (replicas === undefined) return;
    await this.kube.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: current!.metadata.name, namespace: current!.metadata.namespace! },
        spec: { replicas },
      } as LiveObject,
      REPLICAS_HANDOVER_MANAGER,
    );
  }

  /**
   * The objects of these kinds this operator made for the resource, by `Kind/name`: labelled as
   * its, and controlled by it. The labels alone also matched a copy someone made of one (an extra
   * Service with the labels kept), which the operator then deleted as no longer desired.
   */
  private async listOwned(resource: ErrataResource, kinds: readonly string[]): Promise<Map<string, LiveObject>> {
    const owned = new Map<string, LiveObject>();
    for (const kind of kinds) {
      for (const object of await this.kube.listOwned(kind, resource.metadata.namespace, resource.metadata.name)) {
        const controlled = object.metadata.ownerReferences?.some(
          (owner) => owner.controller && owner.uid === resource.metadata.uid,
        );
        if (controlled) owned.set(`${kind}/${object.metadata.name}`, object);
      }
    }
    return owned;
  }

  /**
   * Applies what changed (by spec hash) or was edited by hand (drift.ts), then deletes owned
   * objects no longer desired.
   */
  private async applyChanged(resource: ErrataResource, desired: KubeObject[], live: Map<string, LiveObject>): Promise<void> {
    const wanted = new Set(desired.map((o) => `${o.kind}/${o.metadata.name}`));
    for (const object of desired) {
      const current = live.get(`${object.kind}/${object.metadata.name}`);
      if (!current) await this.refuseTakingOver(resource, object);
      const changed = current?.metadata.annotations?.[SPEC_HASH_ANNOTATION] !== object.metadata.annotations[SPEC_HASH_ANNOTATION];
      if (!changed && !drifted(object, current!)) continue;
      // Only a change can switch autoscaling on; an unchanged autoscaled Deployment's count is the autoscaler's.
      if (changed && object.kind === 'Deployment' && (object as { spec?: { replicas?: number } }).spec?.replicas === undefined) {
        await this.handOverReplicas(current);
      }
      await this.kube.apply(object);
    }
    for (const [key, object] of live) if (!wanted.has(key)) await this.kube.delete(object);
  }

  /**
   * An object of the name it would create that this Errata does not own (another app's
   * ConfigMap or Service) is left alone and reported: a forced apply merged into it and made it
   * this Errata's, so deleting the Errata deleted it too.
   */
  private async refuseTakingOver(resource: ErrataResource, object: KubeObject): Promise<void> {
    const existing = await this.kube.get(object.kind, resource.metadata.namespace, object.metadata.name);
    if (!existing) return;
    const ours = existing.metadata.ownerReferences?.some((owner) => owner.uid === resource.metadata.uid);
    if (!ours) {
      throw new Error(
        `${object.kind} ${object.metadata.name} exists and is not this Errata's: delete or rename it, or give the Errata another name`,
      );
    }
  }
}
