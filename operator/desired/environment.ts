// The ERRATA_* settings every role reads (services/runtime/config.ts), from the spec: plain
// values in the shared ConfigMap, credentials as secretKeyRef entries (never copied out of their
// Secret), then the role's extra env, which wins.
import type { ErrataSpec, Role, SecretKeyRef } from '../api/errata-resource.ts';
import { HTTP_PORT } from './metadata.ts';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: SecretKeyRef };
}

/**
 * Each role's public URL: the ingress host (https with a TLS Secret), else the role's Service
 * inside the cluster. ERRATA_BASE_URL is ingest's, since DSNs are built from it; without an
 * ingress, links to dashboard pages (alerts, digests) then name ingest, which serves none.
 */
export function publicUrls(name: string, namespace: string, spec: ErrataSpec): { ingest: string; mcp: string } {
  if (spec.ingress) {
    const scheme = spec.ingress.tlsSecretName ? 'https' : 'http';
    const url = `${scheme}://${spec.ingress.host}`;
    return { ingest: url, mcp: url };
  }
  const service = (role: Role) => `http://${name}-${role}.${namespace}.svc:${HTTP_PORT}`;
  return { ingest: service('ingest'), mcp: service('mcp') };
}

/** The non-secret settings, shared by every role through one ConfigMap. */
export function sharedSettings(spec: ErrataSpec, baseUrl: string): Record<string, string> {
  const settings: Record<string, string> = {
    ERRATA_HOST: '0.0.0.0',
    ERRATA_PORT: String(HTTP_PORT),
    ERRATA_BASE_URL: baseUrl,
    ERRATA_EVENT_RETENTION_DAYS: String(spec.eventRetentionDays),
    ERRATA_KAFKA_BROKERS: spec.kafka.brokers.join(','),
    ERRATA_KAFKA_TOPIC_PREFIX: spec.kafka.topicPrefix,
    ERRATA_CLICKHOUSE_URL: spec.clickhouse.url,
    ERRATA_CLICKHOUSE_DATABASE: spec.clickhouse.database,
    ERRATA_S3_BUCKET: spec.s3.bucket,
    ERRATA_S3_REGION: spec.s3.region,
    ERRATA_S3_FORCE_PATH_STYLE: String(spec.s3.forcePathStyle),
  };
  if (spec.s3.endpoint) settings.ERRATA_S3_ENDPOINT = spec.s3.endpoint;
  // The ingress controller appends the address it saw to X-Forwarded-For: the dashboard's
  // sign-in throttle counts that, rather than the controller's own that everyone shares.
  if (spec.ingress) settings.ERRATA_TRUSTED_PROXIES = '1';
  return settings;
}

/** The credentials, each a reference to its Secret. */
export function secretEnv(spec: ErrataSpec): EnvVar[] {
  const refs: Array<[string, SecretKeyRef | undefined]> = [
    ['ERRATA_POSTGRES_URL', spec.postgres.url],
    ['ERRATA_SECRETS_KEY', spec.secretsKey],
    ['ERRATA_CLICKHOUSE_USERNAME', spec.clickhouse.username],
    ['ERRATA_CLICKHOUSE_PASSWORD', spec.clickhouse.password],
    ['ERRATA_S3_ACCESS_KEY_ID', spec.s3.accessKeyId],
    ['ERRATA_S3_SECRET_ACCESS_KEY', spec.s3.secretAccessKey],
  ];
  return refs.flatMap(([name, ref]) => (ref ? [{ name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } }] : []));
}

/**
 * Single sign-on for the role that serves the dashboard (mcp): the provider's settings by
 * reference to the spec's Secret, the rest as plain values. Other roles get none.
 */
export function ssoEnv(spec: ErrataSpec, role: Role | undefined): EnvVar[] {
  const sso = spec.sso;
  if (!sso || role !== 'mcp') return [];
  const fromSecret = (name: string, key: string): EnvVar => ({ name, valueFrom: { secretKeyRef: { name: sso.secretName, key } } });
  const plain: Array<[string, string | undefined]> = [
    ['ERRATA_OIDC_ROLE_CLAIM', sso.roleClaim],
    ['ERRATA_OIDC_SCOPES', sso.scopes],
    ['ERRATA_OIDC_NAME', sso.name],
    ['ERRATA_OIDC_CREATE_USERS', String(sso.createUsers)],
    ['ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL', String(sso.trustUnverifiedEmail)],
  ];
  return [
    fromSecret('ERRATA_OIDC_ISSUER', 'issuer'),
    fromSecret('ERRATA_OIDC_CLIENT_ID', 'clientId'),
    fromSecret('ERRATA_OIDC_CLIENT_SECRET', 'clientSecret'),
    fromSecret('ERRATA_OIDC_ROLES', 'roles'),
    ...plain.flatMap(([name, value]) => (value === undefined ? [] : [{ name, value }])),
  ];
}

/** The role's extra env from the spec, as container env entries. */
export function extraEnv(spec: ErrataSpec, role: Role): EnvVar[] {
  return (spec[role].env ?? []).map((v) =>
    v.secretKeyRef ? { name: v.name, valueFrom: { secretKeyRef: v.secretKeyRef } } : { name: v.name, value: v.value ?? '' },
  );
}
