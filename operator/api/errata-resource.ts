// The `Errata` custom resource (group errata.dev, version v1alpha1): its spec, as platform teams
// write it, and its status, as the operator reports it. One zod schema is the source of truth:
// the operator parses with it, and crds/errata.dev_erratas.yaml is generated from it
// (operator/api/crd.ts), so the API server refuses what the operator would refuse.
// Credentials are only ever Secret references, never values.
import { z } from 'zod';
import {
  CLICKHOUSE_DATABASE,
  HTTP_URL,
  KAFKA_BROKER,
  KAFKA_TOPIC_PREFIX,
  OIDC_SCOPES,
  S3_BUCKET,
} from '../../services/runtime/setting-forms.ts';
import { QUANTITY_PATTERN } from './quantity.ts';

export const GROUP = 'errata.dev';
export const VERSION = 'v1alpha1';
export const KIND = 'Errata';
export const PLURAL = 'erratas';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const ROLES = ['ingest', 'mcp', 'dispatcher'] as const;
export type Role = (typeof ROLES)[number];

const dnsLabel = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a DNS subdomain name: lowercase letters, digits, "-" and "."');

/** A key of a Secret in the resource's namespace. */
export const secretKeyRef = z
  .object({ name: dnsLabel.describe('the Secret'), key: z.string().min(1).max(253).describe('the key in it') })
  .strict();
export type SecretKeyRef = z.infer<typeof secretKeyRef>;

// No user:password@ in the authority: the URL is written into the ConfigMap and the Job's
// environment in plain text, and each credential it could carry has a Secret reference beside it.
const httpUrl = z
  .string()
  .max(2000)
  .regex(
    /^https?:\/\/[^\s/?#@]+([/?#]\S*)?$/,
    `${HTTP_URL.message} without user:password@ (give credentials as Secret references)`,
  )
  .pipe(z.url());

const quantity = z.string().regex(QUANTITY_PATTERN, 'must be a Kubernetes quantity such as 500m, 1, 256Mi or 2Gi');
const resourceList = z.object({ cpu: quantity.optional(), memory: quantity.optional() }).strict();
const resources = z.object({ requests: resourceList.optional(), limits: resourceList.optional() }).strict();

/**
 * The migration Job's, when the spec gives none: a namespace whose ResourceQuota covers CPU or
 * memory refuses a pod that states neither. `errata migrate` runs SQL and holds little.
 */
const MIGRATION_RESOURCES = { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } };

const envVar = z
  .object({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
    value: z.string().max(4096).optional(),
    secretKeyRef: secretKeyRef.optional().describe('take the value from a Secret instead'),
  })
  .strict();

const autoscaling = z
  .object({
    minReplicas: z.number().int().min(1).max(1000),
    maxReplicas: z.number().int().min(1).max(1000),
    targetCPUUtilizationPercentage: z.number().int().min(1).max(100).default(70),
  })
  .strict();

const roleSpec = z
  .object({
    replicas: z.number().int().min(0).max(1000).default(1).describe('fixed replicas; ignored when autoscaling is set'),
    autoscaling: autoscaling.optional(),
    resources: resources.optional(),
    env: z.array(envVar).max(100).optional().describe('extra environment, e.g. ERRATA_LOG_LEVEL'),
  })
  .strict();

export const errataSpec = z
  .object({
    image: z
      .string()
      .min(1)
      .max(500)
      // A tag or digest here made repo:1.0:0.2.0, which the kubelet refuses, and the migration
      // Job waited its 30 minutes saying only that it ran past its deadline.
      .regex(/^([^\s/@]+\/)*[^\s/:@]+$/, 'must be the image without tag or digest (the tag is spec.version)')
      .describe('the Errata image, without tag, e.g. ghcr.io/example/errata'),
    version: z
      .string()
      .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/, 'must be an image tag such as 0.1.0')
      .describe('the image tag every role, and the migration Job, run'),
    imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).default('IfNotPresent'),
    migration: z
      .object({ resources: resources.default(MIGRATION_RESOURCES) })
      .strict()
      .default({ resources: MIGRATION_RESOURCES })
      .describe('the migration Job (errata migrate) run before each new version or settings'),
    ingest: roleSpec.default({ replicas: 1 }),
    mcp: roleSpec.default({ replicas: 1 }),
    dispatcher: roleSpec.default({ replicas: 1 }),
    kafka: z
      .object({
        brokers: z
          .array(z.string().max(300).regex(KAFKA_BROKER.pattern, KAFKA_BROKER.message))
          .min(1)
          .max(50)
          .describe('host:port of each bootstrap broker'),
        topicPrefix: z.string().regex(KAFKA_TOPIC_PREFIX.pattern, KAFKA_TOPIC_PREFIX.message).default('errata.'),
      })
      .strict(),
    clickhouse: z
      .object({
        url: httpUrl.describe('the HTTP interface, e.g. http://clickhouse:8123'),
        database: z.string().regex(CLICKHOUSE_DATABASE.pattern, CLICKHOUSE_DATABASE.message).default('errata'),
        username: secretKeyRef.optional(),
        password: secretKeyRef.optional(),
      })
      .strict(),
    postgres: z.object({ url: secretKeyRef.describe('a Secret key holding postgres://user:password@host/db') }).strict(),
    s3: z
      .object({
        bucket: z.string().regex(S3_BUCKET.pattern, S3_BUCKET.message),
        endpoint: httpUrl.optional().describe('for S3-compatible stores; AWS when absent'),
        region: z.string().min(1).max(50).default('us-east-1'),
        forcePathStyle: z.boolean().default(false),
        accessKeyId: secretKeyRef.optional(),
        secretAccessKey: secretKeyRef.optional(),
      })
      .strict(),
    secretsKey: secretKeyRef.describe('64 hex characters sealing alert channel secrets (openssl rand -hex 32)'),
    ingress: z
      .object({
        host: dnsLabel,
        className: z.string().max(253).optional(),
        tlsSecretName: dnsLabel.optional(),
        annotations: z.record(z.string(), z.string()).optional(),
      })
      .strict()
      .optional(),
    sso: z
      .object({
        secretName: dnsLabel.describe(
          'a Secret with the keys issuer, clientId, clientSecret and roles (e.g. errata-owners=owner,errata-devs=member)',
        ),
        roleClaim: z.string().min(1).max(100).optional().describe('the claim whose values map to roles (default groups)'),
        scopes: z
          .string()
          .max(500)
          .regex(OIDC_SCOPES.pattern, OIDC_SCOPES.message)
          .optional()
          .describe('space-separated scopes, openid among them'),
        createUsers: z.boolean().default(false).describe('create an account for an unknown person with a mapped role'),
        trustUnverifiedEmail: z
          .boolean()
          .default(false)
          .describe('let an email the provider sends without email_verified pick an existing account'),
        name: z.string().min(1).max(60).optional().describe("the provider's name on the sign-in button"),
      })
      .strict()
      .optional()
      .describe('OpenID Connect sign-in on the dashboard, beside passwords'),
    eventRetentionDays: z.number().int().min(1).max(3650).default(90),
    monitoring: z
      .object({
        serviceMonitor: z.boolean().default(false),
        prometheusRule: z
          .boolean()
          .default(false)
          .describe("a PrometheusRule with Errata's alerts and recording rules (when the Prometheus Operator's CRD exists)"),
      })
      .strict()
      .default({ serviceMonitor: false, prometheusRule: false }),
    podDisruptionBudgets: z
      .object({ enabled: z.boolean().default(true) })
      .strict()
      .default({ enabled: true }),
  })
  .strict()
  .superRefine((spec, ctx) => {
    for (const role of ROLES) {
      const scaling = spec[role].autoscaling;
      if (scaling && scaling.minReplicas > scaling.maxReplicas) {
        ctx.addIssue({ code: 'custom', path: [role, 'autoscaling'], message: 'minReplicas must not exceed maxReplicas' });
      }
      const names = (spec[role].env ?? []).map((v) => v.name);
      const twice = names.find((name, i) => names.indexOf(name) !== i);
      if (twice)
        ctx.addIssue({ code: 'custom', path: [role, 'env'], message: `${twice} is named twice: give each variable once` });
    }
    if (Boolean(spec.s3.accessKeyId) !== Boolean(spec.s3.secretAccessKey)) {
      ctx.addIssue({ code: 'custom', path: ['s3'], message: 'give both accessKeyId and secretAccessKey, or neither' });
    }
  });
export type ErrataSpec = z.infer<typeof errataSpec>;

export const CONDITION_TYPES = ['Ready', 'Progressing', 'Degraded', 'MigrationsComplete'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export const condition = z.object({
  type: z.enum(CONDITION_TYPES),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/),
  message: z.string().max(32_768),
  lastTransitionTime: z.string(),
  observedGeneration: z.number().int().min(0).optional(),
});
export type Condition = z.infer<typeof condition>;

const roleStatus = z.object({ desired: z.number().int().min(0), ready: z.number().int().min(0) });

export const errataStatus = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  conditions: z.array(condition).optional(),
  version: z.string().optional().describe('the version all roles run'),
  migratedVersion: z.string().optional().describe('the version whose migrations completed'),
  migratedJob: z
    .string()
    .optional()
    .describe('the migration Job that succeeded, named by the hash of the version and settings it migrated with'),
  replicas: z.object({ ingest: roleStatus, mcp: roleStatus, dispatcher: roleStatus }).partial().optional(),
  urls: z.object({ ingest: z.string(), mcp: z.string() }).partial().optional(),
});
export type ErrataStatus = z.infer<typeof errataStatus>;

/** An Errata resource as read from the API server (spec parsed, defaults applied). */
export interface ErrataResource {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: { name: string; namespace: string; uid: string; generation: number; resourceVersion?: string };
  spec: ErrataSpec;
  status?: ErrataStatus;
}
