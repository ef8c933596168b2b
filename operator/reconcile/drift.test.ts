import { describe, expect, it } from 'vitest';
import { drifted } from './drift.ts';

const desired = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'prod-ingest',
    namespace: 'errata',
    labels: { app: 'errata' },
    annotations: { 'errata.dev/spec-hash': 'abc' },
  },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: 'errata', image: 'errata:0.2.0', args: ['serve', 'ingest'] }] } },
  },
};
/** As the API server returns it: defaults, status and its own annotations added. */
const live = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'prod-ingest',
    namespace: 'errata',
    resourceVersion: '42',
    labels: { app: 'errata' },
    annotations: { 'errata.dev/spec-hash': 'abc', 'deployment.kubernetes.io/revision': '3' },
  },
  spec: {
    replicas: 2,
    revisionHistoryLimit: 10,
    template: {
      spec: {
        containers: [
          { name: 'errata', image: 'errata:0.2.0', args: ['serve', 'ingest'], terminationMessagePath: '/dev/termination-log' },
        ],
        dnsPolicy: 'ClusterFirst',
      },
    },
  },
  status: { replicas: 2 },
});

describe('drift', () => {
  it('is not what the API server adds: defaults, status, its own annotations', () => {
    expect(drifted(desired, live())).toBe(false);
  });

  it('is not how the API server writes what was set: quantities its own way, an empty value left out', () => {
    const sized = {
      ...desired,
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'errata', env: [{ name: 'EMPTY', value: '' }], resources: { requests: { cpu: '0.5', memory: '1024Mi' } } },
            ],
          },
        },
      },
    };
    const stored = {
      ...live(),
      spec: {
        template: {
          spec: {
            containers: [{ name: 'errata', env: [{ name: 'EMPTY' }], resources: { requests: { cpu: '500m', memory: '1Gi' } } }],
          },
        },
      },
    };
    expect(drifted(sized, stored)).toBe(false);
    stored.spec.template.spec.containers[0]!.resources.requests.cpu = '2';
    expect(drifted(sized, stored)).toBe(true);
  });

  it('is not a quantity written in milli-units whose decimal has no exact binary form, nor an empty map left out', () => {
    const container = (resources: object) => ({ spec: { template: { spec: { containers: [{ name: 'errata', resources }] } } } });
    const given = { ...desired, ...container({ requests: { cpu: '0.7' }, limits: {} }) };
    expect(drifted(given, { ...live(), ...container({ requests: { cpu: '700m' } }) })).toBe(false);
    expect(drifted(given, { ...live(), ...container({ requests: { cpu: '701m' } }) })).toBe(true);
    expect(drifted(given, { ...live(), ...container({ limits: { cpu: '1' }, requests: { cpu: '700m' } }) })).toBe(false);
    expect(drifted({ ...desired, ...container({ limits: { cpu: '1' } }) }, { ...live(), ...container({}) })).toBe(true);
    // Close is not equal: a value edited by one unit is a hand edit.
    const sized = (memory: string) => container({ requests: { memory } });
    expect(drifted({ ...desired, ...sized('1000000000') }, { ...live(), ...sized('1000000001') })).toBe(true);
  });

  it('is another spelling of a number outside requests and limits: a ConfigMap edited from 8000 to 8k', () => {
    const config = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: desired.metadata, data });
    const given = config({ ERRATA_PORT: '8000', ERRATA_EVENT_RETENTION_DAYS: '90' });
    expect(drifted(given, config({ ERRATA_PORT: '8000', ERRATA_EVENT_RETENTION_DAYS: '90' }))).toBe(false);
    expect(drifted(given, config({ ERRATA_PORT: '8k', ERRATA_EVENT_RETENTION_DAYS: '90' }))).toBe(true);
    expect(drifted(given, config({ ERRATA_PORT: '8000', ERRATA_EVENT_RETENTION_DAYS: '90.0' }))).toBe(true);
  });

  it('is a field the operator set, changed or removed by hand', () => {
    const scaled = live();
    scaled.spec.replicas = 7;
    expect(drifted(desired, scaled)).toBe(true);
    const image = live();
    image.spec.template.spec.containers[0]!.image = 'errata:hand-made';
    expect(drifted(desired, image)).toBe(true);
    const argument = live();
    argument.spec.template.spec.containers[0]!.args = ['serve'];
    expect(drifted(desired, argument)).toBe(true);
    const unlabelled = live();
    delete (unlabelled.metadata.labels as Record<string, string>).app;
    expect(drifted(desired, unlabelled)).toBe(true);
    const sidecar = live();
    sidecar.spec.template.spec.containers.push({ ...sidecar.spec.template.spec.containers[0]!, name: 'extra' });
    expect(drifted(desired, sidecar)).toBe(true);
  });
});
