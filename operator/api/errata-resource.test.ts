import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CRD_FILE, crdYaml } from './crd-file.ts';
import { loadConfig } from '../../services/runtime/config.ts';
import { sharedSettings } from '../desired/environment.ts';
import { errataSpec } from './errata-resource.ts';

const MINIMAL_SPEC = {
  image: 'registry.example.com/errata',
  version: '0.1.0',
  kafka: { brokers: ['kafka:9092'] },
  clickhouse: { url: 'http://clickhouse:8123' },
  postgres: { url: { name: 'errata-postgres', key: 'url' } },
  s3: { bucket: 'errata-maps' },
  secretsKey: { name: 'errata-secrets', key: 'secrets-key' },
};

describe('the Errata resource', () => {
  it('fills in the defaults a platform team would expect', () => {
    const spec = errataSpec.parse(MINIMAL_SPEC);
    expect(spec).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      ingest: { replicas: 1 },
      mcp: { replicas: 1 },
      dispatcher: { replicas: 1 },
      kafka: { topicPrefix: 'errata.' },
      clickhouse: { database: 'errata' },
      s3: { region: 'us-east-1', forcePathStyle: false },
      eventRetentionDays: 90,
      monitoring: { serviceMonitor: false },
      podDisruptionBudgets: { enabled: true },
    });
  });

  it('refuses inline credentials, unknown fields and contradictory settings, saying where', () => {
    const refuse = (spec: unknown) => {
      const parsed = errataSpec.safeParse(spec);
      expect(parsed.success).toBe(false);
      return parsed.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(refuse({ ...MINIMAL_SPEC, postgres: { url: 'postgres://u:secret@db/errata' } })).toMatch(/^postgres\.url/);
    expect(refuse({ ...MINIMAL_SPEC, s3: { bucket: 'b', accessKeyId: { name: 's', key: 'id' } } })).toMatch(
      /s3: give both accessKeyId and secretAccessKey/,
    );
    expect(refuse({ ...MINIMAL_SPEC, ingest: { autoscaling: { minReplicas: 5, maxReplicas: 2 } } })).toMatch(
      /ingest\.autoscaling: minReplicas must not exceed maxReplicas/,
    );
    const twice = [
      { name: 'ERRATA_LOG_LEVEL', value: 'debug' },
      { name: 'ERRATA_LOG_LEVEL', value: 'info' },
    ];
    expect(refuse({ ...MINIMAL_SPEC, mcp: { env: twice } })).toMatch(
      /mcp\.env: ERRATA_LOG_LEVEL is named twice: give each variable once/,
    );
    expect(refuse({ ...MINIMAL_SPEC, replicas: 3 })).toMatch(/replicas/);
    expect(refuse({ ...MINIMAL_SPEC, version: 'latest tag' })).toMatch(/^version: must be an image tag/);
    for (const image of ['ghcr.io/example/errata:1.0', 'errata@sha256:' + 'a'.repeat(64)]) {
      expect(refuse({ ...MINIMAL_SPEC, image })).toMatch(/^image: must be the image without tag or digest/);
    }
    expect(errataSpec.safeParse({ ...MINIMAL_SPEC, image: 'registry.local:5000/team/errata' }).success).toBe(true);
    expect(refuse({ ...MINIMAL_SPEC, clickhouse: { url: 'http://default:secret@clickhouse:8123' } })).toMatch(
      /^clickhouse\.url: .*without user:password@/,
    );
    expect(refuse({ ...MINIMAL_SPEC, s3: { bucket: 'maps', endpoint: 'https://key:secret@minio:9000' } })).toMatch(
      /^s3\.endpoint: .*without user:password@/,
    );
  });

  it('refuses what a pod would refuse at start, in the words the runtime uses', () => {
    const refuse = (spec: unknown) => {
      const parsed = errataSpec.safeParse(spec);
      expect(parsed.success).toBe(false);
      return parsed.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    const clickhouse = MINIMAL_SPEC.clickhouse;
    expect(refuse({ ...MINIMAL_SPEC, kafka: { brokers: ['kafka'] } })).toMatch(/^kafka\.brokers\.0: host:port/);
    expect(refuse({ ...MINIMAL_SPEC, kafka: { brokers: ['kafka:9092'], topicPrefix: 'team/a.' } })).toMatch(
      /^kafka\.topicPrefix: use letters, digits/,
    );
    expect(refuse({ ...MINIMAL_SPEC, clickhouse: { ...clickhouse, database: 'errata-prod' } })).toMatch(
      /^clickhouse\.database: use letters, digits and "_"/,
    );
    expect(refuse({ ...MINIMAL_SPEC, clickhouse: { url: 'tcp://clickhouse:9000' } })).toMatch(
      /^clickhouse\.url: an http:\/\/ or https:\/\/ URL/,
    );
    expect(refuse({ ...MINIMAL_SPEC, s3: { bucket: 'Errata-Maps' } })).toMatch(/^s3\.bucket: an S3 bucket name/);
    expect(refuse({ ...MINIMAL_SPEC, s3: { bucket: 'errata-maps', region: '' } })).toMatch(/^s3\.region/);
    expect(refuse({ ...MINIMAL_SPEC, sso: { secretName: 'sso', scopes: 'email profile' } })).toMatch(
      /^sso\.scopes: .*includes openid/,
    );
    // Autoscaling without a CPU request in the spec stays valid: a namespace's LimitRange may give one.
    expect(errataSpec.safeParse({ ...MINIMAL_SPEC, ingest: { autoscaling: { minReplicas: 2, maxReplicas: 4 } } }).success).toBe(
      true,
    );
  });

  it('gives a pod settings its runtime accepts', () => {
    const spec = errataSpec.parse({ ...MINIMAL_SPEC, kafka: { brokers: ['kafka-0:9092', 'kafka-1:9092'] } });
    const settings = sharedSettings(spec, 'https://errata.example.com');
    const config = loadConfig({
      ...settings,
      ERRATA_POSTGRES_URL: 'postgres://errata@db/errata',
      ERRATA_SECRETS_KEY: 'a'.repeat(64),
    });
    expect(config.kafka?.brokers).toEqual(['kafka-0:9092', 'kafka-1:9092']);
  });

  it('the committed CRD is the one the schemas generate (run `npm run crd` after changing them)', () => {
    expect(readFileSync(CRD_FILE, 'utf8')).toBe(crdYaml());
  });

  it('the chart installs that same CRD, and the example resource is a valid one', () => {
    const chartCrd = fileURLToPath(new URL('../../charts/errata/crds/errata.dev_erratas.yaml', import.meta.url));
    expect(realpathSync(chartCrd)).toBe(realpathSync(CRD_FILE));
    const example = parseAllDocuments(readFileSync(new URL('../../docs/errata-example.yaml', import.meta.url), 'utf8'))
      .map((d) => d.toJS())
      .find((d) => d.kind === 'Errata');
    expect(example).toMatchObject({ apiVersion: 'errata.dev/v1alpha1', kind: 'Errata' });
    expect(errataSpec.safeParse(example.spec).error?.issues ?? []).toEqual([]);
  });
});
